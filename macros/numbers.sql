{% macro exact_avg(expr, scale=9) -%}
    {#- The mean in exact decimal arithmetic (values rounded to `scale`
        decimals first), returned as double: the same result whatever the
        order of the rows, so incremental and --full-refresh builds agree to
        the last bit (a double sum depends on the order of its terms). A
        group holding a value of 1e18 or more in magnitude (or NaN) is past
        what the decimal sum holds: its mean is the double mean, so that one
        absurd value is a figure on the page, not a stopped night. -#}
    case
        when max(abs({{ expr }})) < 1e18
            then cast(avg(cast(
                case when abs({{ expr }}) < 1e18 then {{ expr }} end
                as decimal(38, {{ scale }})
            )) as double)
        else avg({{ expr }})
    end
{%- endmacro %}
