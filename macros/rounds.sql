{% macro round_sort_key(expr) -%}
    {#- '2/1' -> [2, 1]: rounds sort numerically part by part (SPEC 3.1). -#}
    list_transform(
        string_split(trim({{ expr }}), '/'),
        lambda part: try_cast(trim(part) as integer)
    )
{%- endmacro %}
