{% macro generate_schema_name(custom_schema_name, node) -%}
    {#- Use the configured schema as-is (marts, ops, staging, ...), so the
        public names are exactly those of the SPEC: marts.resume_set_scores. -#}
    {%- if custom_schema_name is none -%}
        {{ target.schema }}
    {%- else -%}
        {{ custom_schema_name | trim }}
    {%- endif -%}
{%- endmacro %}
