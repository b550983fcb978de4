-- One row per numeric figure of the final report of a current OpenAI Evals
-- run, named as the warehouse names its figures (scorer, metric). evals'
-- basic evals report `accuracy` as get_accuracy over the match events
-- (match, accuracy); an eval that records a metrics key reports the key's
-- mean (np.mean of recorder.get_scores: the key's scorer, mean);
-- `boostrap_std` (sic) is a bootstrap of the match accuracy (match,
-- boostrap_std; random: not recomputed); `usage_<k>` the sum of the
-- sampling events' usage (usage, <k>); `counts/<choice>` a model-graded
-- eval's count of each choice (choice, counts/<choice>); any other key is
-- (final_report, <key>). A view: readers filter by set.
with

runs as (

    select * from {{ ref('int_openai_evals__runs_current') }}
    where final_report_json is not null

),

metrics_scorers as (

    select distinct
        set_id,
        scorer
    from {{ ref('openai_evals_item_scores') }}
    where event_type = 'metrics'

),

entries as (

    select
        set_id,
        file_sha256,
        unnest(map_entries(json_transform(
            final_report_json, '"MAP(VARCHAR, JSON)"'
        ))) as entry
    from runs

),

figures as (

    select
        entries.set_id,
        entries.file_sha256,
        entries.entry.key as report_key,
        {{ openai_evals_value('entries.entry.value') }} as tool_reported_value,
        metrics_scorers.scorer is not null as is_metrics_key
    from entries
    left join metrics_scorers
        on
            entries.set_id = metrics_scorers.set_id
            and entries.entry.key = metrics_scorers.scorer

),

final as (

    select
        set_id,
        file_sha256,
        report_key,
        case
            when is_metrics_key then report_key
            when report_key in ('accuracy', 'boostrap_std', 'bootstrap_std')
                then 'match'
            when report_key like 'usage\_%' escape '\' then 'usage'
            when report_key like 'counts/%' then 'choice'
            else 'final_report'
        end as scorer,
        case
            when is_metrics_key then 'mean'
            when report_key like 'usage\_%' escape '\'
                then substr(report_key, 7)
            else report_key
        end as metric,
        tool_reported_value
    from figures
    where tool_reported_value is not null

)

select * from final
