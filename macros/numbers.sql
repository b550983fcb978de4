{% macro exact_avg(expr, scale=9) -%}
    {#- The mean in exact decimal arithmetic (values rounded to `scale`
        decimals first), returned as double: the same result whatever the
        order of the rows, so incremental and --full-refresh builds agree to
        the last bit (a double sum depends on the order of its terms). -#}
    cast(avg(cast({{ expr }} as decimal(38, {{ scale }}))) as double)
{%- endmacro %}
