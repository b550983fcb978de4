-- One row per drop file version rejected whole, with the reason. is_latest
-- says the rejected bytes are still what the path holds: the operator must
-- act.
with

file_versions as (

    select * from {{ ref('stg_drops__file_versions') }}

),

latest as (

    select
        *,
        observation_seq = max(observation_seq) over (partition by source_file)
            as is_latest
    from file_versions

),

final as (

    select
        observation_seq,
        source_file,
        sha256,
        kind,
        try_cast(drop_date as date) as drop_date,
        cast(drop_date as varchar) as drop_folder,
        file_name,
        size_bytes,
        reject_reason,
        is_latest,
        loaded_at
    from latest
    where status = 'rejected'

)

select * from final
