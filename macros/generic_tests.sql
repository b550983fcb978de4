{% test rules(model, grain=none, checks=none) %}
    {#- The write-time rules of macros/write_checks.sql, for a view (a view
        writes no rows, so a test node evaluates them): one row per broken
        rule with the number of rows breaking it. `grain`: columns that are
        unique and not null together; `checks`: name -> row rule. -#}
    {%- set checks = checks or {} -%}
    with

    {% if grain -%}
    duplicate_keys as (

        select count(*) as n_rows
        from (
            select {{ grain | join(', ') }}
            from {{ model }}
            group by all
            having count(*) > 1
        )

    ),

    {% endif -%}
    counts as (

        select
            {%- if grain %}
            count_if({{ grain | join(' is null or ') }} is null) as grain_not_null,
            {%- endif %}
            {%- for name, expr in checks.items() %}
            count_if(not coalesce(({{ expr }}), false)) as {{ name }},
            {%- endfor %}
            count(*) as n_rows_total
        from {{ model }}

    ),

    broken as (

        {%- if grain %}
        select 'grain (' || '{{ grain | join(", ") }}' || ') unique' as rule, n_rows
        from duplicate_keys
        union all
        select 'grain not null' as rule, grain_not_null as n_rows from counts
        {%- endif %}
        {%- for name in checks %}
        {{ 'union all' if grain or not loop.first }}
        select '{{ name }}' as rule, {{ name }} as n_rows from counts
        {%- endfor %}

    )

    select rule, n_rows
    from broken
    where n_rows > 0
{% endtest %}


{% test agrees_with_tool(model, column_name, describe) %}
    {#- A verdict on the night: one row per row of `model` whose
        `column_name` is false - a figure computed here that differs from
        the one the imported tool reported - described by `describe` (a SQL
        text expression). Configure it with severity warn (a verdict must
        not stop the models downstream of `model` from being built),
        store_failures (`agent-eval build` reads the rows and names them)
        and tag `verdict` (the night exits 3). -#}
    select {{ describe }} as what
    from {{ model }}
    where {{ column_name }} = false
{% endtest %}
