-- One row per evaluated subject with at least one expected metric (a run,
-- or a persona of a run): the overall similarity (SPEC 5)
--   sum(similarity x weight) / sum(weight) over the metrics present,
-- or their plain mean when those weights sum to 0 (is_weight_fallback), and
-- its interpretation band: the band of seed engagement_interpretation_bands
-- with the greatest min_similarity <= the overall similarity.
with

metric_scores as (

    select * from {{ ref('int_engagement__metric_scores') }}

),

bands as (

    select * from {{ ref('engagement_interpretation_bands') }}

),

weighted as (

    select
        set_id,
        run_sha256,
        scope,
        persona,
        count(*) as n_metrics,
        string_agg(metric, ',' order by metric_order) as metrics,
        sum(weight) as weight_sum,
        sum(similarity_exact * weight) as weighted_similarity_sum,
        avg(similarity_exact) as mean_similarity
    from metric_scores
    group by set_id, run_sha256, scope, persona

),

scored as (

    select
        *,
        weight_sum = 0 as is_weight_fallback,
        round(
            case
                when weight_sum > 0
                    then weighted_similarity_sum / weight_sum
                else mean_similarity
            end,
            {{ var('engagement_decimals') }}
        ) as overall_similarity
    from weighted

),

banded as (

    select
        scored.set_id,
        scored.persona,
        scored.scope,
        arg_max(bands.band, bands.min_similarity) as interpretation_band
    from scored
    inner join bands
        on scored.overall_similarity >= bands.min_similarity
    group by scored.set_id, scored.scope, scored.persona

),

final as (

    select
        scored.set_id,
        scored.run_sha256,
        scored.scope,
        scored.persona,
        cast(scored.n_metrics as bigint) as n_metrics,
        scored.metrics,
        scored.weight_sum,
        scored.is_weight_fallback,
        case
            when scored.is_weight_fallback then 'equal_fallback'
            else 'weighted'
        end as weighting_method,
        scored.overall_similarity,
        bands.band as interpretation_band,
        bands.label_ko as interpretation_label,
        bands.label_en as interpretation_label_en,
        bands.min_similarity as interpretation_min_similarity
    from scored
    left join banded
        on
            scored.set_id = banded.set_id
            and scored.scope = banded.scope
            and scored.persona is not distinct from banded.persona
    left join bands
        on banded.interpretation_band = bands.band

)

select * from final
