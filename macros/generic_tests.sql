{% test unique_combination(model, columns) %}
    {#- Fails for every combination of `columns` that occurs more than once. -#}
    select
        {{ columns | join(', ') }},
        count(*) as n_rows
    from {{ model }}
    group by {{ columns | join(', ') }}
    having count(*) > 1
{% endtest %}


{% test expression_is_true(model, expression, where_clause=none) %}
    {#- Fails for every row where `expression` is not true. -#}
    select *
    from {{ model }}
    where
        not coalesce(({{ expression }}), false)
        {%- if where_clause %} and ({{ where_clause }}){% endif %}
{% endtest %}


{% test within_range(model, column_name, min_value, max_value) %}
    {#- Fails for every non-null value outside [min_value, max_value]. -#}
    select {{ column_name }}
    from {{ model }}
    where
        {{ column_name }} is not null
        and not ({{ column_name }} between {{ min_value }} and {{ max_value }})
{% endtest %}


{% test not_null_columns(model, columns) %}
    {#- Fails for every row where any of `columns` is null (one query for
        several columns: cheaper than one not_null test per column). -#}
    select *
    from {{ model }}
    where
        {% for column in columns -%}
        {{ column }} is null{% if not loop.last %} or {% endif %}
        {% endfor %}
{% endtest %}


{% test columns_within_range(model, columns, min_value, max_value) %}
    {#- Fails for every row where a non-null value of one of `columns` is
        outside [min_value, max_value]. -#}
    select *
    from {{ model }}
    where
        {% for column in columns -%}
        not coalesce({{ column }} between {{ min_value }} and {{ max_value }}, true)
        {%- if not loop.last %} or {% endif %}
        {% endfor %}
{% endtest %}
