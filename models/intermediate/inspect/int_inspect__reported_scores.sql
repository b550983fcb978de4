-- One row per (current Inspect AI log, scorer, metric) the log reports
-- (results.scores): the scorer as the warehouse names it (`scorer.key` for
-- a dict score's key), its epoch reducer and the tool's figure. The
-- reducer of every scorer (int_inspect__sample_scores) and the figures
-- beside the warehouse's own (inspect_set_scores) come from here.
with

logs as (

    select * from {{ ref('int_inspect__logs_current') }}

),

result_entries as (

    select
        set_id,
        file_sha256,
        unnest(json_transform(results_json -> '$.scores', '["JSON"]'))
            as score
    from logs

),

named as (

    select
        set_id,
        file_sha256,
        case
            when (score ->> '$.name') = (score ->> '$.scorer')
                then score ->> '$.name'
            else (score ->> '$.scorer') || '.' || (score ->> '$.name')
        end as scorer,
        score ->> '$.reducer' as reducer,
        unnest(map_entries(json_transform(
            score -> '$.metrics', '"MAP(VARCHAR, JSON)"'
        ))) as metric_entry
    from result_entries

),

final as (

    select
        named.set_id,
        named.file_sha256,
        named.scorer,
        named.metric_entry.key as metric,
        min(named.reducer) as reducer,
        min({{ json_finite_number(
            "named.metric_entry.value -> '$.value'"
        ) }}) as tool_reported_value
    from named
    group by
        named.set_id, named.file_sha256, named.scorer, named.metric_entry.key

)

select * from final
