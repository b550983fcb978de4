-- One row per (current summary dataset, metric): the pass threshold in force.
-- The dataset's own `thresholds` object overrides the default of seed
-- summary_thresholds for the metric names it lists (SPEC 6).
with

current_sets as (

    select * from {{ ref('int_sets__current') }}

),

datasets as (

    select * from {{ ref('stg_summary__datasets') }}

),

default_thresholds as (

    select * from {{ ref('summary_thresholds') }}

),

summary_sets as (

    select
        current_sets.set_id,
        current_sets.file_sha256,
        datasets.thresholds_json
    from current_sets
    left join datasets
        on
            current_sets.set_id = datasets.source_file
            and current_sets.file_sha256 = datasets.file_sha256
    where current_sets.kind = 'summary'

),

resolved as (

    select
        summary_sets.set_id,
        summary_sets.file_sha256,
        default_thresholds.metric,
        default_thresholds.metric_order,
        default_thresholds.label_ko,
        default_thresholds.threshold as default_threshold,
        try_cast(json_extract_string(
            summary_sets.thresholds_json,
            '$."' || default_thresholds.metric || '"'
        ) as double) as dataset_threshold
    from summary_sets
    cross join default_thresholds

),

final as (

    select
        set_id,
        file_sha256,
        metric,
        metric_order,
        label_ko,
        coalesce(dataset_threshold, default_threshold) as threshold,
        case
            when dataset_threshold is not null then 'dataset' else 'default'
        end as threshold_source,
        default_threshold
    from resolved

)

select * from final
