{% macro openai_evals_json_text(value_json) -%}
    {#- A JSON value of an OpenAI Evals event as text: a string as it is, a
        JSON null (or no value) null, anything else its JSON text. -#}
    {%- set value_json = '(' ~ value_json ~ ')' %}
    case
        when {{ value_json }} is null or json_type({{ value_json }}) = 'NULL'
            then null
        when json_type({{ value_json }}) = 'VARCHAR'
            then {{ value_json }} ->> '$'
        else cast({{ value_json }} as varchar)
    end
{%- endmacro %}


{% macro openai_evals_prompt_text(prompt_json) -%}
    {#- A sampling event's prompt as text: a text prompt as it is; a chat
        prompt (a list of messages) its last user message's content, else
        its JSON text. -#}
    {%- set prompt_json = '(' ~ prompt_json ~ ')' %}
    case
        when json_type({{ prompt_json }}) = 'ARRAY'
            then coalesce(
                list_filter(
                    json_transform(
                        {{ prompt_json }},
                        '[{"role": "VARCHAR", "content": "VARCHAR"}]'
                    ),
                    lambda m: m.role = 'user'
                )[-1].content,
                cast({{ prompt_json }} as varchar)
            )
        else {{ openai_evals_json_text(prompt_json) }}
    end
{%- endmacro %}


{% macro openai_evals_sampled_text(sampled_json) -%}
    {#- What a sampling or match event says was sampled, as text: evals'
        OpenAI completion functions record a list of completions (one, as
        a rule: that one), others a string. -#}
    {%- set sampled_json = '(' ~ sampled_json ~ ')' %}
    case
        when
            json_type({{ sampled_json }}) = 'ARRAY'
            and json_array_length({{ sampled_json }}) = 1
            then {{ openai_evals_json_text(sampled_json ~ " -> '$[0]'") }}
        else {{ openai_evals_json_text(sampled_json) }}
    end
{%- endmacro %}


{% macro openai_evals_value(value_json) -%}
    {#- A score as a number, as evals' numpy means read it: a number as it
        is, true 1 and false 0; null (unscored: evals' model-graded means
        leave a None out) for anything else. The reader has rejected the
        events whose value is NaN or text among a metric's numbers. -#}
    {%- set value_json = '(' ~ value_json ~ ')' %}
    case
        when json_type({{ value_json }}) = 'BOOLEAN'
            then case when ({{ value_json }})::boolean then 1.0 else 0.0 end
        else {{ json_finite_number(value_json) }}
    end
{%- endmacro %}
