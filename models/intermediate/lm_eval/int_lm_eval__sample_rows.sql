{{ config(materialized='ephemeral') }}
-- One row per line of every loaded lm-eval samples file version, with why
-- it cannot be scored: the reader's reason, or, for a current version,
-- that the file pairs with no task of a results file (int_lm_eval__pairs):
-- no results file with its <datetime> beside it, or one that does not
-- list its task, or lists it with figures that were rejected. Its lines
-- are then no set (not half of one); a results file delivered later pairs
-- them, and the rejection goes.
with

samples as (

    select * from {{ ref('stg_lm_eval__samples') }}

),

pairs as (

    select * from {{ ref('int_lm_eval__pairs') }}
    where samples_file is not null

),

verdicts as (

    -- one per current samples file (it may pair with two results files
    -- of one <datetime>: paired when any is)
    select
        samples_file,
        samples_sha256,
        bool_or(is_paired) as is_paired,
        max(results_file) filter (where task_reject_reason is not null)
            as rejected_in,
        max(run_results_file) as run_results_file,
        max(task) as task,
        max(run_datetime) as run_datetime
    from pairs
    group by samples_file, samples_sha256

),

final as (

    select
        samples.source_file,
        samples.file_sha256,
        samples.line_number,
        samples.loaded_at,
        samples.doc_id,
        coalesce(
            samples.reject_reason,
            case
                when verdicts.samples_file is null or verdicts.is_paired
                    then null
                when verdicts.rejected_in is not null
                    then
                        'missing_results_file: task ''' || verdicts.task
                        || ''' of ' || verdicts.rejected_in
                        || ' was rejected (see its rejected rows): its'
                        || ' samples are no set'
                when verdicts.run_results_file is not null
                    then
                        'missing_results_file: '
                        || verdicts.run_results_file
                        || ' lists no task ''' || verdicts.task || ''''
                else
                    'missing_results_file: no results file of datetime '
                    || verdicts.run_datetime || ' beside '
                    || verdicts.samples_file
                    || ' (lm-eval writes results_<datetime>.json with the'
                    || ' samples files of a run; they are a set when it is'
                    || ' delivered)'
            end
        ) as reject_reason,
        coalesce(
            samples.raw_text,
            case
                when
                    verdicts.samples_file is not null
                    and not verdicts.is_paired
                    then
                        'doc_id ' || samples.doc_id || ', filter '
                        || samples.filter_name
            end
        ) as raw_text
    from samples
    left join verdicts
        on
            samples.source_file = verdicts.samples_file
            and samples.file_sha256 = verdicts.samples_sha256

)

select * from final
