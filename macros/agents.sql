{#-
  The agent registry on the SQL side (docs/adding-an-agent.md).

  var('agents') (dbt_project.yml) lists the registered agents when dbt
  parses the project; the seed `agents` (seeds/registry) holds the same
  list with what the rest of the project needs to know of each, and the
  data test assert_agent_registry_matches checks that both agree. Every
  agent provides the same five ephemeral models in
  models/intermediate/<agent>/, its interface:

    int_<agent>__sets           one row per current set: series, version
    int_<agent>__file_rows      one row per loaded file version: row counts
    int_<agent>__rejected_rows  one row per record that could not be scored
    int_<agent>__set_metrics    one row per (set, metric): value, n, se
    int_<agent>__history_items  one row per scored item (may be empty)

  and the shared models (int_history__sets, int_history__items,
  history_set_metrics, ops.file_reconciliation, ops.rejected_rows) are
  unions over the registry (agents_union).
-#}

{% macro agents_union(interface, columns) -%}
    {#- union all of `columns` of int_<agent>__<interface> over var('agents') -#}
    {%- for agent in var('agents') %}
    select {{ columns | join(', ') }}
    from {{ ref('int_' ~ agent ~ '__' ~ interface) }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{%- endmacro %}


{% macro file_row_counts(
    kind, rows_model, scored_model,
    scored_file='set_id', scored_sha='file_sha256', scored_where='true',
    scored_count='count(*)'
) -%}
    {#- The rows of int_<agent>__file_rows for one input kind whose staging
        model `rows_model` has one row per raw row (source_file,
        file_sha256, reject_reason): raw, valid and rejected rows per file
        version, and the rows of `scored_model` (a public mart) per
        (scored_file, scored_sha) that pass `scored_where`, counted by
        `scored_count` (count(distinct line_number): a record with a row per
        scorer there counts once). -#}
    select
        '{{ kind }}' as kind,
        row_counts.source_file,
        row_counts.sha256,
        row_counts.n_raw_rows,
        row_counts.n_valid_rows,
        row_counts.n_rejected_rows,
        scored_counts.n_scored_rows
    from (
        select
            source_file,
            file_sha256 as sha256,
            count(*) as n_raw_rows,
            count(*) filter (where reject_reason is null) as n_valid_rows,
            count(*) filter (where reject_reason is not null)
                as n_rejected_rows
        from {{ ref(rows_model) }}
        group by source_file, file_sha256
    ) as row_counts
    left join (
        select
            {{ scored_file }} as source_file,
            {{ scored_sha }} as sha256,
            {{ scored_count }} as n_scored_rows
        from {{ ref(scored_model) }}
        where {{ scored_where }}
        group by {{ scored_file }}, {{ scored_sha }}
    ) as scored_counts
        on
            row_counts.source_file = scored_counts.source_file
            and row_counts.sha256 = scored_counts.sha256
{%- endmacro %}


{% macro no_history_items(agent) -%}
    {#- int_<agent>__history_items of an agent without scored items that a
        pass rule applies to: no row, the interface's columns (untyped
        nulls: the union takes the types of the agents that have items). -#}
    select
        cast('{{ agent }}' as varchar) as agent,
        null as set_id,
        null as file_sha256,
        null as line_number,
        null as query_id,
        null as round,
        null as round_order,
        null as segment,
        null as status,
        null as is_duplicate,
        null as accuracy_score,
        null as stability_score,
        null as latency_sec,
        null as latency_score,
        null as query_text,
        null as assistant_message,
        null as error_message,
        null as fail_detail,
        null as is_pass
    where false
{%- endmacro %}


{% macro score_scale_max(scale) -%}
    {#- The top of a score scale: `item` (the agents' 0-score_max rubric
        scores) or `unit` (0 to 1: the summary metrics, an imported tool's scores). -#}
    {%- if scale == 'item' -%}{{ var('score_max') }}
    {%- elif scale == 'unit' -%}1
    {%- else -%}{{ exceptions.raise_compiler_error('no score scale ' ~ scale) }}
    {%- endif -%}
{%- endmacro %}


{% macro score_histogram(observations, scale) -%}
    {#- One row per (set_id, file_sha256, series, bin) with at least one
        score: var('score_histogram_bins') equal bins over [0, the scale's
        max] (rpt_score_histogram_bins lists their edges), each closed on
        the left and the last one on both sides (a score of the max falls
        in the last bin; a score outside the scale in the nearest end bin).
        `observations` names a CTE with set_id, file_sha256, series and
        score; null scores are not counted. -#}
    {%- set n_bins = var('score_histogram_bins') -%}
    select
        set_id,
        file_sha256,
        series,
        cast(greatest(least(
            floor(score / ({{ score_scale_max(scale) }} / {{ n_bins }})),
            {{ n_bins }} - 1
        ), 0) as integer) as bin,
        count(*) as n_items
    from {{ observations }}
    where score is not null
    group by all
{%- endmacro %}


{% macro interface_set_metrics(stats, mart_values, scaled=false) -%}
    {#- The select of an int_<agent>__set_metrics model: the rows of the
        stats model `stats` (set_id, agent, metric, metric_value, n_obs,
        n_clusters, std_error, scoring_version) beside the value of the same
        (set, metric) in `mart_values` (set_id, metric, metric_value: the
        set mart's value, the one source of truth); the stats model's value
        is the estimate. With `scaled`, `mart_values` also gives the scale
        the set mart reports the figure within (scale_min, scale_max,
        is_proportion: an imported tool's scorer, whose scale the data
        declares); else they are null and seed history_metrics alone
        declares it. -#}
    select
        stats.set_id,
        stats.agent,
        stats.metric,
        mart_values.metric_value,
        stats.metric_value as estimate,
        stats.n_obs,
        stats.n_clusters,
        stats.std_error,
        stats.scoring_version,
        {%- if scaled %}
        mart_values.scale_min,
        mart_values.scale_max,
        mart_values.is_proportion
        {%- else %}
        cast(null as double) as scale_min,
        cast(null as double) as scale_max,
        cast(null as boolean) as is_proportion
        {%- endif %}
    from {{ stats }} as stats
    inner join {{ mart_values }} as mart_values
        on
            stats.set_id = mart_values.set_id
            and stats.metric = mart_values.metric
{%- endmacro %}


{% macro item_agents() -%}
    {#- The registered agents that have items (seed agents, has_items),
        read from the registry when the model compiles; [] while dbt
        parses. -#}
    {#- the ref while dbt parses makes the registry seed load first; a unit
        test compiles its model without the project graph (no registry:
        no agent, as scoring_version) -#}
    {%- if not execute -%}
        {%- set registry = ref('agents') -%}
        {{ return([]) }}
    {%- endif -%}
    {%- if 'nodes' not in graph -%}
        {{ return([]) }}
    {%- endif -%}
    {%- set registry = ref('agents') -%}
    {%- set found = run_query(
        'select agent from ' ~ registry ~ ' where has_items order by agent'
    ) -%}
    {{ return(found.rows | map(attribute=0) | list) }}
{%- endmacro %}


{% macro unbuilt_item_sets(relation) -%}
    {#- unbuilt(relation) over the sets of every agent that has items, as the
        agents define their sets (int_history__sets: a file, or a part of
        one, as a promptfoo output's provider and prompt; the version is
        the file's): the history's item marts build each such agent's new
        sets, and no shared model names an agent. Such a mart is
        set_incremental with sets_model int_history__sets (version
        set_version, built as file_sha256). -#}
    {#- the ref while dbt parses: the sets model is not upstream of the
        marts' inputs, and the mart depends on it -#}
    {%- set sets_model = ref('int_history__sets') -%}
    {%- set agents = item_agents() -%}
    {{ unbuilt(
        relation,
        sets_where="agent in ('" ~ (agents | join("', '")) ~ "')" if agents else none
    ) }}
{%- endmacro %}


{% macro imported_tools_union(mart, columns) -%}
    {#- union all of `columns` of the mart <tool>_<mart> over
        var('imported_tools'): the shared contract of every imported
        evaluation tool (marts.eval_runs, eval_item_scores,
        eval_set_scores). Each tool's own marts keep the fields only its
        format has. -#}
    {%- for tool in var('imported_tools') %}
    select {{ columns | join(', ') }}
    from {{ ref(tool ~ '_' ~ mart) }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{%- endmacro %}


{% macro imported_set_stats(agent) -%}
    {#- The CTEs of int_<tool>__set_stats of an imported tool, called as
        {% call imported_set_stats('<tool>') %} ... {% endcall %} with the
        body the union of the tool's observations (set_id, file_sha256,
        metric, group_key, cluster_id, metric_value; macro
        set_observations): `observations`, the clustered mean, n and
        standard error of each (set, metric) (macro cluster_mean_stats),
        and `set_stats`, the interface's columns. -#}
observations as (

    {{ caller() }}

),

{{ cluster_mean_stats('observations') }},

set_stats as (

    select
        set_id,
        file_sha256,
        '{{ agent }}' as agent,
        metric,
        metric_value,
        n_obs,
        n_clusters,
        std_error,
        {{ scoring_version(agent) }} as scoring_version
    from metric_stats

)
{%- endmacro %}


{% macro set_observations(
    relation, metric, value, cluster_id='sample_id', where=none
) -%}
    {#- One branch of an imported tool's observations: a row per row of
        `relation` (that passes `where`), the SQL expressions `metric` and
        `value` observed in cluster `cluster_id` (a sample; 'set' for a
        figure the set has once). -#}
    select
        set_id,
        file_sha256,
        {{ metric }} as metric,
        'all' as group_key,
        {{ cluster_id }} as cluster_id,
        {{ value }} as metric_value
    from {{ relation }}
    {%- if where %}
    where {{ where }}
    {%- endif %}
{%- endmacro %}


{% macro set_cost_observations(relation) -%}
    {#- The observation `total_cost` of an imported tool's set: the sum of
        the total_cost of `relation`'s rows (one per sample record), one
        value per set with no interval, when any row records a cost. -#}
    select
        set_id,
        file_sha256,
        'total_cost' as metric,
        'all' as group_key,
        'set' as cluster_id,
        sum(total_cost) as metric_value
    from {{ relation }}
    group by set_id, file_sha256
    having count(total_cost) > 0
{%- endmacro %}


{% macro imported_set_scores(
    agent, sets, scale_min, scale_max, is_proportion,
    n_obs='computed.n_samples', interval_when='true',
    columns_before_version=[], columns_after_version=[]
) -%}
    {#- The `final` CTE of <tool>_set_scores of an imported tool: a row per
        row of `computed` (set_id, scorer, metric, value, n_samples,
        std_error, t_critical, tool_reported_value) of a set in `sets`
        (the CTE of the sets built: drop_date, series_id, file_sha256),
        with the value's 95% interval where `interval_when` holds, reported
        within the scale (macro interval_bound: `scale_min`, `scale_max`,
        `is_proportion` and `n_obs` are SQL expressions over `computed`),
        the scale itself (scale_min, scale_max, is_proportion: what the
        history's intervals of the set's scorers use too), and
        agrees_with_tool: false when the value and the tool's figure
        are both defined and differ by more than 1e-9. The tool's own
        columns follow file_sha256 (`columns_before_version`) or
        scoring_version (`columns_after_version`), as SQL select items. -#}
final as (

    select
        computed.set_id,
        computed.scorer,
        computed.metric,
        computed.value,
        cast(computed.n_samples as bigint) as n_samples,
        computed.std_error,
        {%- for side in ['low', 'high'] %}
        case
            when {{ interval_when }}
                then {{ interval_bound(
                    side, 'computed.value', 'computed.std_error',
                    'computed.t_critical', n_obs,
                    scale_min, scale_max, is_proportion
                ) }}
        end as ci_{{ side }},
        {%- endfor %}
        cast({{ scale_min }} as double) as scale_min,
        cast({{ scale_max }} as double) as scale_max,
        coalesce({{ is_proportion }}, false) as is_proportion,
        computed.tool_reported_value,
        case
            when computed.value is null or computed.tool_reported_value is null
                then null
            else abs(computed.value - computed.tool_reported_value) <= 1e-9
        end as agrees_with_tool,
        {{ sets }}.drop_date,
        {{ sets }}.series_id,
        {{ sets }}.file_sha256,
        {%- for column in columns_before_version %}
        {{ column }},
        {%- endfor %}
        {{ scoring_version(agent) }} as scoring_version
        {%- for column in columns_after_version %},
        {{ column }}
        {%- endfor %}
    from computed
    inner join {{ sets }}
        on computed.set_id = {{ sets }}.set_id

)
{%- endmacro %}


{% macro imported_history_items(agent, fail_detail='items.explanation') -%}
    {#- The `final` select of int_<tool>__history_items of an imported tool
        whose items have Inspect's columns: a row per item of `items`
        judged by its set's scorer (CTE `judged_by`: set_id, scorer):
        query = sample id, round = epoch, segment = scorer; status error
        (the item has an error), empty (no answer), ok; the verdict is the
        item's is_pass. -#}
    select
        '{{ agent }}' as agent,
        items.set_id,
        items.file_sha256,
        items.line_number,
        items.sample_id as query_id,
        cast(items.epoch as varchar) as round,
        items.epoch as round_order,
        items.scorer as segment,
        case
            when items.error is not null then 'error'
            when coalesce(trim(items.completion), '') = '' then 'empty'
            else 'ok'
        end as status,
        false as is_duplicate,
        cast(null as double) as accuracy_score,
        cast(null as double) as stability_score,
        items.latency_sec,
        cast(null as double) as latency_score,
        items.input as query_text,
        items.completion as assistant_message,
        items.error as error_message,
        {{ fail_detail }} as fail_detail,
        items.is_pass
    from items
    inner join judged_by
        on
            items.set_id = judged_by.set_id
            and items.scorer = judged_by.scorer
{%- endmacro %}


{% macro history_metric_scale(agent, metric, column) -%}
    {#- `column` (scale_min, scale_max or is_proportion) of the rule of
        seed history_metrics for `agent`'s metric `metric` (a SQL
        expression): the metric's own row, else the agent's row of metric
        '*'; null when neither exists. The range the history's intervals
        keep to, for a set mart's interval of the same metric. -#}
    (
        select metric_rules.{{ column }}
        from {{ ref('history_metrics') }} as metric_rules
        where
            metric_rules.agent = '{{ agent }}'
            and metric_rules.metric in ({{ metric }}, '*')
        order by metric_rules.metric = '*'
        limit 1
    )
{%- endmacro %}
