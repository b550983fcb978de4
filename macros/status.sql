{% macro status_reason(error_text, raw_json_state, has_raw_error, message, n_data_ui) -%}
    case
        when not {{ is_blank(error_text) }} then 'error_column'
        when {{ raw_json_state }} = 'invalid' then 'raw_json_invalid'
        when {{ has_raw_error }} then 'raw_error'
        when {{ is_blank(message) }} and {{ n_data_ui }} = 0
            then 'empty_response'
        when {{ contains_any_keyword(message, ref('partial_keywords')) }}
            then 'partial_keyword'
        else 'ok'
    end
{%- endmacro %}


{% macro status_from_reason(reason) -%}
    case
        when {{ reason }} in ('error_column', 'raw_json_invalid', 'raw_error')
            then 'error'
        when {{ reason }} = 'empty_response' then 'empty'
        when {{ reason }} = 'partial_keyword' then 'partial'
        else 'ok'
    end
{%- endmacro %}

{# The item pass rule of seed history_pass_rules (one row per agent): the
   item passes when its stability and accuracy scores reach the agent's
   minimums. Used by recruit_item_scores.is_pass and the resume agent's
   int_resume_agent__history_items, so
   the viewer's pass filter, flips and pass@k apply the same rule. #}
{% macro passes_item_rule(stability_score, accuracy_score, rules) -%}
    ({{ stability_score }} >= {{ rules }}.min_stability_score
    and {{ accuracy_score }} >= {{ rules }}.min_accuracy_score)
{%- endmacro %}
