{{ config(
    materialized='set_incremental',
    sets_model='int_lm_eval__task_sets',
    version_column='set_version',
    built_version_column='file_sha256',
) }}
-- One row per (lm-eval set, scorer aggregated by mean): the mean over the
-- documents of the scorer's value (lm-eval's `mean`), with n and the
-- standard error clustered by document: each document its own cluster, so
-- it is lm-eval's `mean_stderr`, the sample standard deviation (ddof 1)
-- over sqrt(n) (macros/history.sql). A corpus metric (bleu, perplexity,
-- ...) has no row: lm-eval does not aggregate it by a mean.
with

items as (

    select * from {{ unbuilt(ref('lm_eval_item_scores')) }}

),

{% call imported_set_stats('lm_eval') %}
    {{ set_observations(
        'items', 'scorer', 'value', where="aggregation = 'mean'"
    ) }}
{% endcall %},

final as (

    select * from set_stats

)

select * from final
