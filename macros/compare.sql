{#-
  The compare (docs/compare.md): any two sets of one agent, items paired by
  the agent's item key, with the paired statistics of macros/history.sql.
  on-run-end defines them as DuckDB table macros in the warehouse
  (create_compare_macros); publish copies them into the published file,
  where the CLI and the viewer call them with bound parameters:
      select * from marts.compare_items(?, ?)
      select * from marts.compare_metrics(?, ?)
  They name their tables by schema and table only (marts.history_items,
  rubric.history_metrics), so they bind in whichever file holds them.
-#}

{% macro compare_metric_columns() -%}
    {#- The item measures the compare pairs: (metric, column of
        marts.history_items). pass_rate is the share of items that pass. -#}
    {{ return([
        ('pass_rate', 'cast(is_pass as integer)'),
        ('accuracy_score', 'accuracy_score'),
        ('stability_score', 'stability_score'),
        ('latency_score', 'latency_score'),
        ('latency_sec', 'latency_sec'),
    ]) }}
{%- endmacro %}


{% macro compare_item_pairs(set_a, set_b) -%}
    {#- CTEs ending with item_pairs: one row per item key of set `set_a` or
        `set_b` (expressions: macro parameters or literals), full outer
        joined on (query_id, round), with both sides' fields (suffix _a,
        _b) and `change`: only_a / only_b (unpaired: counted and listed,
        never dropped), pass_to_fail, fail_to_pass, score_changed (a 0-5
        item score moved; score_change is the largest move), unchanged;
        change_order sorts them in that order of interest. -#}
    items_a as (

        select * from marts.history_items
        where set_id = {{ set_a }}

    ),

    items_b as (

        select * from marts.history_items
        where set_id = {{ set_b }}

    ),

    joined as (

        select
            coalesce(items_a.query_id, items_b.query_id) as query_id,
            coalesce(items_a.round, items_b.round) as round,
            coalesce(items_a.round_order, items_b.round_order) as round_order,
            coalesce(items_b.query_text, items_a.query_text) as query_text,
            items_a.set_id is not null as in_a,
            items_b.set_id is not null as in_b,
            items_a.line_number as line_number_a,
            items_b.line_number as line_number_b,
            items_a.status as status_a,
            items_b.status as status_b,
            items_a.is_pass as is_pass_a,
            items_b.is_pass as is_pass_b,
            {%- for metric, column in compare_metric_columns() %}
            {{ column | replace('is_pass', 'items_a.is_pass') if metric == 'pass_rate' else 'items_a.' ~ column }} as {{ metric }}_a,
            {{ column | replace('is_pass', 'items_b.is_pass') if metric == 'pass_rate' else 'items_b.' ~ column }} as {{ metric }}_b,
            {%- endfor %}
            items_a.message as message_a,
            items_b.message as message_b,
            items_a.fail_reason as fail_reason_a,
            items_b.fail_reason as fail_reason_b
        from items_a
        full outer join items_b
            on
                items_a.query_id = items_b.query_id
                and items_a.round = items_b.round

    ),

    item_pairs as (

        select
            *,
            coalesce(greatest(
                abs(accuracy_score_b - accuracy_score_a),
                abs(stability_score_b - stability_score_a),
                abs(latency_score_b - latency_score_a)
            ), 0) as score_change,
            case
                when not in_b then 'only_a'
                when not in_a then 'only_b'
                when is_pass_a and not is_pass_b then 'pass_to_fail'
                when not is_pass_a and is_pass_b then 'fail_to_pass'
                when coalesce(greatest(
                    abs(accuracy_score_b - accuracy_score_a),
                    abs(stability_score_b - stability_score_a),
                    abs(latency_score_b - latency_score_a)
                ), 0) > 0 then 'score_changed'
                else 'unchanged'
            end as change
        from joined

    )
{%- endmacro %}


{% macro compare_item_order() -%}
    {#- The order of the compared items, once for every caller: pass->fail,
        fail->pass, changed scores (largest move first), unchanged, only in
        A, only in B; within a change by round, then query. -#}
    change_order, score_change desc, round_order, query_id
{%- endmacro %}


{% macro compare_item_rows(set_a, set_b) -%}
    {#- After compare_item_pairs: the CTE item_rows, one row per item key
        with the columns of marts.compare_items (change_order: the
        change's place in compare_changes). -#}
    item_rows as (

        select
            {{ set_a }} as set_a,
            {{ set_b }} as set_b,
            query_id,
            round,
            round_order,
            query_text,
            change,
            case change
                {%- for change in compare_changes() %}
                when '{{ change }}' then {{ loop.index }}
                {%- endfor %}
            end as change_order,
            score_change,
            status_a,
            status_b,
            is_pass_a,
            is_pass_b,
            {%- for metric, _ in compare_metric_columns() if metric != 'pass_rate' %}
            {{ metric }}_a,
            {{ metric }}_b,
            {%- endfor %}
            message_a,
            message_b,
            fail_reason_a,
            fail_reason_b,
            line_number_a,
            line_number_b
        from item_pairs

    )
{%- endmacro %}


{% macro compare_changes() -%}
    {#- The changes of compare_item_pairs in the order compare_item_order
        lists them (change_order is the place in this list). -#}
    {{ return(['pass_to_fail', 'fail_to_pass', 'score_changed', 'unchanged', 'only_a', 'only_b']) }}
{%- endmacro %}


{% macro compare_top_item_rows(top_n) -%}
    {#- After compare_item_rows: the CTE top_items, the first `top_n` items
        of each change in compare_item_order with n_change, the change's
        count of items. One top-N per change and a count by change, not a
        row_number() over every pair: a window sorts all the pairs (most
        of them score_changed), a top-N keeps top_n rows per change. -#}
    change_counts as (

        select
            change,
            count(*) as n_change
        from item_rows
        group by change

    ),

    first_of_change as (
        {%- for change in compare_changes() %}

        (
            select * from item_rows
            where change = '{{ change }}'
            order by {{ compare_item_order() }}
            limit {{ top_n }}
        )
        {{- '\n\n        union all' if not loop.last }}
        {%- endfor %}

    ),

    top_items as (

        select
            first_of_change.*,
            change_counts.n_change
        from first_of_change
        inner join change_counts
            on first_of_change.change = change_counts.change

    )
{%- endmacro %}


{% macro compare_items_sql(set_a, set_b) -%}
    {#- The body of marts.compare_items(set_a, set_b): every item key of
        either set, in compare_item_order. -#}
    with

    {{ compare_item_pairs(set_a, set_b) }},

    {{ compare_item_rows(set_a, set_b) }}

    select * from item_rows
    order by {{ compare_item_order() }}
{%- endmacro %}


{% macro compare_changed_items_sql(set_a, set_b, top_n) -%}
    {#- The body of marts.compare_changed_items(set_a, set_b, top_n): the
        first top_n items of each change (compare_top_item_rows) with the
        change's count, in compare_item_order. -#}
    with

    {{ compare_item_pairs(set_a, set_b) }},

    {{ compare_item_rows(set_a, set_b) }},

    {{ compare_top_item_rows(top_n) }}

    select * from top_items
    order by {{ compare_item_order() }}
{%- endmacro %}


{% macro compare_metric_rows(set_a, set_b) -%}
    {#- After compare_item_pairs: CTEs ending with metric_rows, the rows
        of marts.compare_metrics(set_a, set_b), one per item measure with
        a value on both sides of a pair. delta = value_b - value_a, the mean (of round means, as the set marts average) of
        the paired differences; its standard error clustered by query from
        those differences (cluster_residuals, cluster_robust_stats: the
        history's CR1), the 95% interval delta +- t(G - 1) se, the
        two-sided p-value of t = delta / se with G - 1 degrees of freedom;
        pass_rate's p-value is McNemar's exact test of the discordant
        pairs. p_holm: Holm's step-down adjustment across the metrics of
        this comparison. verdict: improved / regressed when p_holm < var
        history_alpha and the change in the metric's good direction is at
        least its min_delta (seed history_metrics), else within_noise. -#}
    counts as (

        select
            count(*) filter (where in_a and in_b) as n_paired,
            count(*) filter (where in_a and not in_b) as n_only_a,
            count(*) filter (where in_b and not in_a) as n_only_b,
            count(*) filter (where change = 'pass_to_fail') as n_pass_fail,
            count(*) filter (where change = 'fail_to_pass') as n_fail_pass
        from item_pairs

    ),

    agents as (

        select any_value(agent) as agent
        from marts.history_items
        where set_id in ({{ set_a }}, {{ set_b }})

    ),

    -- each side's round means over the pairs with both values: one row
    -- per round and side below, so the macro's mean of group means is
    -- the side's value, with the weights of the differences (value_b -
    -- value_a = delta) at the cost of a few rows
    side_round_means as (

        select
            round,
            {%- for metric, _ in compare_metric_columns() %}
            {%- set both = metric ~ '_a is not null and ' ~ metric ~ '_b is not null' %}
            {{ exact_avg('case when ' ~ both ~ ' then ' ~ metric ~ '_a end') }}
                as {{ metric }}_mean_a,
            {{ exact_avg('case when ' ~ both ~ ' then ' ~ metric ~ '_b end') }}
                as {{ metric }}_mean_b{{ ',' if not loop.last }}
            {%- endfor %}
        from item_pairs
        where in_a and in_b
        group by round

    ),

    -- one observation per paired difference (the delta's residuals are
    -- clustered by query), and per round and side
    observations as (

        -- the measures of a pair as rows, by unnesting a list of structs:
        -- a projection, where a lateral join of values is decorrelated
        -- into a join on every column of item_pairs (about a fifth of the
        -- macro's time at 1,000,000 items)
        select
            'delta' as set_id,
            '' as file_sha256,
            measures.metric,
            measures.round as group_key,
            measures.query_id as cluster_id,
            measures.value_b - measures.value_a as metric_value
        from (
            select
                query_id,
                round,
                unnest([
                    {%- for metric, _ in compare_metric_columns() %}
                    {
                        'metric': '{{ metric }}',
                        'value_a': cast({{ metric }}_a as double),
                        'value_b': cast({{ metric }}_b as double)
                    }{{ ',' if not loop.last }}
                    {%- endfor %}
                ], recursive := true)
            from item_pairs
            where in_a and in_b
        ) as measures
        where
            measures.value_a is not null
            and measures.value_b is not null

        union all

        select
            sides.side as set_id,
            '' as file_sha256,
            means.metric,
            side_round_means.round as group_key,
            side_round_means.round as cluster_id,
            case sides.side
                when 'a' then means.mean_a
                else means.mean_b
            end as metric_value
        from side_round_means
        cross join
            lateral (
                values
                {%- for metric, _ in compare_metric_columns() %}
                ('{{ metric }}', side_round_means.{{ metric }}_mean_a, side_round_means.{{ metric }}_mean_b){{ ',' if not loop.last }}
                {%- endfor %}
            ) as means (metric, mean_a, mean_b)
        cross join (values ('a'), ('b')) as sides (side)
        where means.mean_a is not null

    ),

    {{ cluster_mean_stats('observations') }},

    stats as (

        select
            deltas.metric,
            side_a.metric_value as value_a,
            side_b.metric_value as value_b,
            round(deltas.metric_value, 12) as delta,
            deltas.n_obs as n_pairs,
            deltas.n_clusters,
            deltas.std_error,
            {{ t_critical_975('deltas.n_clusters - 1') }} as t_critical
        from metric_stats as deltas
        inner join metric_stats as side_a
            on
                deltas.metric = side_a.metric
                and side_a.set_id = 'a'
        inner join metric_stats as side_b
            on
                deltas.metric = side_b.metric
                and side_b.set_id = 'b'
        where deltas.set_id = 'delta'

    ),

    rules as (

        select
            metric_rules.metric,
            metric_rules.label_ko as metric_label,
            cast(metric_rules.metric_order as integer) as metric_order,
            metric_rules.direction,
            cast(metric_rules.min_delta as double) as min_delta
        from rubric.history_metrics as metric_rules
        inner join agents
            on metric_rules.agent = agents.agent

    ),

    tested as (

        select
            stats.*,
            -- pass_rate is not a seed metric: the share of items that pass
            coalesce(rules.metric_label, '통과율 (pass rate)') as metric_label,
            coalesce(rules.metric_order, 0) as metric_order,
            coalesce(rules.direction, 'higher_is_better') as direction,
            rules.min_delta,
            counts.n_paired,
            counts.n_only_a,
            counts.n_only_b,
            counts.n_pass_fail,
            counts.n_fail_pass,
            case
                when stats.metric = 'pass_rate' then 'mcnemar_exact'
                else 'cluster_robust_t'
            end as test,
            case
                when stats.metric = 'pass_rate'
                    then {{ mcnemar_exact_p('counts.n_pass_fail', 'counts.n_fail_pass') }}
                when stats.std_error is null then null
                when stats.std_error = 0
                    then case when stats.delta = 0 then 1.0 else 0.0 end
                else {{ t_two_sided_p(
                    'stats.delta / stats.std_error', 'stats.n_clusters - 1'
                ) }}
            end as p_value
        from stats
        cross join counts
        left join rules
            on stats.metric = rules.metric

    ),

    ranked as (

        select
            *,
            count(p_value) over () as n_tests,
            row_number() over (
                order by p_value nulls last, metric
            ) as p_rank
        from tested

    ),

    adjusted as (

        select
            *,
            -- Holm: the k-th smallest of m p-values times (m - k + 1),
            -- kept monotone by the running maximum, capped at 1
            case
                when p_value is not null
                    then least(1.0, max((n_tests - p_rank + 1) * p_value) over (
                        order by p_value nulls last, metric
                        rows between unbounded preceding and current row
                    ))
            end as p_holm,
            case direction when 'lower_is_better' then -1 else 1 end as sign
        from ranked

    ),

    metric_rows as (

        select
            {{ set_a }} as set_a,
            {{ set_b }} as set_b,
            metric,
            metric_label,
            metric_order,
            direction,
            value_a,
            value_b,
            delta,
            n_pairs,
            n_clusters,
            round(std_error, 12) as std_error,
            round(delta - t_critical * std_error, 12) as ci_low,
            round(delta + t_critical * std_error, 12) as ci_high,
            test,
            round(p_value, 12) as p_value,
            round(p_holm, 12) as p_holm,
            min_delta,
            case
                when
                    p_holm < {{ var('history_alpha') }}
                    and sign * delta > 0
                    and sign * delta >= coalesce(min_delta, 0)
                    then 'improved'
                when
                    p_holm < {{ var('history_alpha') }}
                    and sign * delta < 0
                    and -sign * delta >= coalesce(min_delta, 0)
                    then 'regressed'
                else 'within_noise'
            end as verdict,
            n_paired,
            n_only_a,
            n_only_b,
            n_pass_fail,
            n_fail_pass
        from adjusted

    )
{%- endmacro %}


{% macro compare_metrics_sql(set_a, set_b) -%}
    {#- The body of marts.compare_metrics(set_a, set_b): compare_metric_rows
        by the metric's order. -#}
    with

    {{ compare_item_pairs(set_a, set_b) }},

    {{ compare_metric_rows(set_a, set_b) }}

    select * from metric_rows
    order by metric_order, metric
{%- endmacro %}


{% macro compare_pair_sql(set_a, set_b, top_n) -%}
    {#- The body of marts.compare_pair(set_a, set_b, top_n): the two sets
        paired once for both tables of a page, compare_metrics's rows
        (row_type 'metric') and compare_changed_items's (row_type 'item'),
        their columns side by side (a column of the other kind is null),
        the metrics first. The pairing is the costly part at a million
        items; one query lets DuckDB materialize it once for both. -#}
    with

    {{ compare_item_pairs(set_a, set_b) }},

    {{ compare_item_rows(set_a, set_b) }},

    {{ compare_metric_rows(set_a, set_b) }},

    {{ compare_top_item_rows(top_n) }}

    select
        'metric' as row_type,
        *
    from metric_rows

    union all by name

    select
        'item' as row_type,
        *
    from top_items

    order by row_type desc, metric_order, metric, {{ compare_item_order() }}
{%- endmacro %}


{% macro create_compare_macros() -%}
    {#- on-run-end: (re)define the compare's table macros in the warehouse;
        publish copies them into the published file. DuckDB binds a macro's
        tables when it is created, so a run that has not built them (a
        selection, `agent-eval evaluate`'s one-run plan) defines none. -#}
    {%- set found = 0 -%}
    {%- if execute -%}
        {%- set found = run_query(
            "select count(*) from duckdb_tables() where database_name = current_database() and "
            ~ "((schema_name = 'marts' and table_name = 'history_items') "
            ~ "or (schema_name = 'rubric' and table_name = 'history_metrics'))"
        ).columns[0].values()[0] -%}
    {%- endif -%}
    {%- if found == 2 %}
    create or replace macro marts.compare_items(set_a, set_b) as table
    {{ compare_items_sql('set_a', 'set_b') }};
    create or replace macro marts.compare_changed_items(set_a, set_b, top_n) as table
    {{ compare_changed_items_sql('set_a', 'set_b', 'top_n') }};
    create or replace macro marts.compare_metrics(set_a, set_b) as table
    {{ compare_metrics_sql('set_a', 'set_b') }};
    create or replace macro marts.compare_pair(set_a, set_b, top_n) as table
    {{ compare_pair_sql('set_a', 'set_b', 'top_n') }}
    {%- else %}
    select 1
    {%- endif %}
{%- endmacro %}
