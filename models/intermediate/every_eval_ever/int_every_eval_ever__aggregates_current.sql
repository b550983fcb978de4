-- One row per current Every Eval Ever aggregate version (one evaluation
-- set): its header's fields, its series (every_eval_ever, benchmark,
-- model: the converters name files by a random UUID, so the series cannot
-- be the file name) and its headline scorer (the first evaluation
-- result's: the one the history's item marts follow).
with

current_sets as (

    select * from {{ ref('int_sets__current') }}
    where kind = 'every_eval_ever_aggregate'

),

aggregates as (

    select * from {{ ref('stg_every_eval_ever__aggregates') }}

),

joined as (

    select
        current_sets.set_id,
        current_sets.file_sha256,
        cast(current_sets.drop_date as date) as drop_date,
        aggregates.schema_version,
        aggregates.evaluation_id,
        aggregates.benchmark,
        aggregates.evaluated_at,
        aggregates.retrieved_at,
        aggregates.source_name,
        aggregates.source_type,
        aggregates.source_organization_name,
        aggregates.evaluator_relationship,
        aggregates.eval_library,
        aggregates.eval_library_version,
        aggregates.model_id,
        aggregates.model_name,
        aggregates.model_developer,
        aggregates.inference_platform,
        aggregates.results_json,
        aggregates.instance_file,
        aggregates.instance_file_path,
        aggregates.instance_checksum,
        aggregates.instance_total_rows
    from current_sets
    inner join aggregates
        on
            current_sets.set_id = aggregates.source_file
            and current_sets.file_sha256 = aggregates.file_sha256

),

final as (

    select
        *,
        'every_eval_ever:' || coalesce(benchmark, '?') || ':'
        || coalesce(model_id, '?') as series_id,
        results_json ->> '$[0].scorer' as headline_scorer
    from joined

)

select * from final
