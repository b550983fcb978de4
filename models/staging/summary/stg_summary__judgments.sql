-- One row per LLM judgment attempt written by `agent-eval judge` (source
-- judge.summary_judgments, append-only). Only `ok` attempts carry a score;
-- timeouts, HTTP errors and malformed replies are kept with their error.
with

judgments as (

    select * from {{ source('judge', 'summary_judgments') }}

),

final as (

    select
        judgment_id,
        set_id,
        file_sha256,
        case_id,
        metric,
        status,
        case when status = 'ok' then llm_score end as llm_score,
        model,
        prompt_version,
        error,
        judged_at
    from judgments

)

select * from final
