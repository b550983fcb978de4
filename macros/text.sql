{% macro is_blank(expr) -%}
    coalesce(regexp_full_match({{ expr }}, '\s*'), true)
{%- endmacro %}


{% macro contains_any_keyword(text_expr, keyword_relation, keyword_column='keyword') -%}
    coalesce(exists (
        select 1
        from {{ keyword_relation }} as kw
        where contains({{ text_expr }}, kw.{{ keyword_column }})
    ), false)
{%- endmacro %}
