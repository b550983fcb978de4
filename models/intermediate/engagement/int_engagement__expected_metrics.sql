-- One row per expected metric of the current expected.json of every run:
-- scope `run` (the document's `expected`, persona null) and scope `persona`
-- (one row per persona and metric of `perPersona`). Each metric carries its
-- kind (count / rate) and the weight used in the overall similarity: the
-- document's `weights` when it gives one, else the seed default.
with

runs as (

    select * from {{ ref('int_engagement__runs_current') }}

),

expected_docs as (

    select * from {{ ref('stg_engagement__expected') }}

),

metrics as (

    select * from {{ ref('engagement_metrics') }}

),

current_docs as (

    select
        runs.set_id,
        runs.run_sha256,
        expected_docs.expected_json,
        expected_docs.per_persona_json,
        expected_docs.weights_json
    from expected_docs
    inner join runs
        on
            expected_docs.source_file = runs.expected_file
            and expected_docs.file_sha256 = runs.expected_sha256
    where expected_docs.reject_reason is null

),

persona_entries as (

    -- perPersona as a map, unnested: json_each would carry the whole
    -- document on each of its rows (memory quadratic in the personas)
    select
        set_id,
        run_sha256,
        weights_json,
        unnest(map_entries(json_transform(
            per_persona_json, '"MAP(VARCHAR, JSON)"'
        ))) as persona_entry
    from current_docs

),

subjects as (

    select
        set_id,
        run_sha256,
        'run' as scope,
        null::varchar as persona,
        expected_json as metrics_json,
        weights_json
    from current_docs

    union all

    select
        set_id,
        run_sha256,
        'persona' as scope,
        {{ nfc('persona_entry.key') }} as persona,
        persona_entry.value as metrics_json,
        weights_json
    from persona_entries

),

unpivoted as (

    select
        subjects.set_id,
        subjects.run_sha256,
        subjects.scope,
        subjects.persona,
        metrics.metric,
        metrics.metric_kind,
        metrics.metric_order,
        subjects.metrics_json -> metrics.metric as expected_raw,
        subjects.weights_json -> metrics.metric as weight_raw,
        metrics.default_weight
    from subjects
    cross join metrics

),

final as (

    select
        set_id,
        run_sha256,
        scope,
        persona,
        metric,
        metric_kind,
        metric_order,
        {{ json_finite_number('expected_raw') }} as expected_value,
        default_weight,
        {{ json_finite_number('weight_raw') }} as weight_override,
        coalesce({{ json_finite_number('weight_raw') }}, default_weight)
            as weight
    from unpivoted
    where {{ json_finite_number('expected_raw') }} is not null

)

select * from final
