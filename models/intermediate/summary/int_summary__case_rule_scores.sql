{{ config(
    materialized='set_incremental',
    kind='summary',
    pre_hook="{{ delete_summary_sets_scored_with_other_rules() }}",
) }}
-- One row per scorable test case of the current version of each summary
-- dataset: the four rule scores of SPEC 6 with the evidence behind them and
-- the rule snapshot they were computed with. A set is scored once per file
-- version and rule snapshot: editing a rule seed re-scores every set.
with

unbuilt_cases as (

    -- rows scored with another rule snapshot are deleted by the pre-hook
    -- after this filter is compiled: they must not count as built
    select * from {{ unbuilt(
        ref('int_summary__cases_current'),
        built_where='rule_snapshot in (select snap.rule_snapshot from '
            ~ ref('int_summary__rule_snapshot') ~ ' as snap)'
    ) }}

),

entities as (

    select * from {{ ref('int_summary__entities') }}

),

tag_keywords as (

    select
        lower(trim(tag)) as tag,
        {{ nfc('keyword') }} as keyword
    from {{ ref('summary_tag_keywords') }}

),

definitive_keywords as (

    select
        {{ nfc('keyword') }} as keyword,
        note
    from {{ ref('summary_definitive_keywords') }}

),

rule_params as (

    select * from {{ ref('summary_rule_params') }}

),

rule_snapshot as (

    select * from {{ ref('int_summary__rule_snapshot') }}

),

params as (

    select
        max(value) filter (
            where param = 'accuracy_no_summary_entities_score'
        ) as no_summary_entities_score,
        max(value) filter (
            where param = 'accuracy_no_context_entities_score'
        ) as no_context_entities_score,
        max(value) filter (
            where param = 'risk_coverage_no_tags_score'
        ) as no_tags_score
    from rule_params

),

summary_entities as (

    select * from entities
    where text_source = 'summary'

),

context_entities as (

    select * from entities
    where text_source = 'context'

),

summary_entity_support as (

    select
        summary_entities.set_id,
        summary_entities.file_sha256,
        summary_entities.case_id,
        summary_entities.entity_key,
        context_entities.entity_key is not null as is_supported
    from summary_entities
    left join context_entities
        on
            summary_entities.set_id = context_entities.set_id
            and summary_entities.file_sha256 = context_entities.file_sha256
            and summary_entities.case_id = context_entities.case_id
            and summary_entities.entity_key = context_entities.entity_key

),

summary_entity_counts as (

    select
        set_id,
        file_sha256,
        case_id,
        count(*) as n_summary_entities,
        count(*) filter (where is_supported) as n_supported_entities,
        string_agg(entity_key, '; ' order by entity_key) as summary_entities,
        string_agg(entity_key, '; ' order by entity_key) filter (
            where not is_supported
        ) as unsupported_entities
    from summary_entity_support
    group by set_id, file_sha256, case_id

),

context_entity_counts as (

    select
        set_id,
        file_sha256,
        case_id,
        count(*) as n_context_entities
    from context_entities
    group by set_id, file_sha256, case_id

),

case_tags as (

    select
        set_id,
        file_sha256,
        case_id,
        answer,
        unnest(summary_tags) as tag
    from unbuilt_cases

),

tag_coverage as (

    -- a tag is covered when any of its keywords occurs in the answer; a tag
    -- without keywords in the seed (unknown) can never be covered
    select
        case_tags.set_id,
        case_tags.file_sha256,
        case_tags.case_id,
        case_tags.tag,
        count(tag_keywords.keyword) > 0 as is_known_tag,
        coalesce(bool_or(regexp_matches(
            case_tags.answer,
            {{ summary_keyword_regex('tag_keywords.keyword') }}
        )), false) as is_covered
    from case_tags
    left join tag_keywords
        on case_tags.tag = tag_keywords.tag
    group by
        case_tags.set_id,
        case_tags.file_sha256,
        case_tags.case_id,
        case_tags.tag

),

tag_counts as (

    select
        set_id,
        file_sha256,
        case_id,
        count(*) as n_expected_tags,
        count(*) filter (where is_covered) as n_covered_tags,
        string_agg(tag, ', ' order by tag) filter (where is_covered)
            as covered_tags,
        string_agg(tag, ', ' order by tag) filter (where not is_covered)
            as missing_tags,
        string_agg(tag, ', ' order by tag) filter (where not is_known_tag)
            as unknown_tags
    from tag_coverage
    group by set_id, file_sha256, case_id

),

definitive_hits as (

    select
        unbuilt_cases.set_id,
        unbuilt_cases.file_sha256,
        unbuilt_cases.case_id,
        string_agg(
            definitive_keywords.keyword, ', '
            order by definitive_keywords.keyword
        ) as definitive_expressions
    from unbuilt_cases
    inner join definitive_keywords
        on regexp_matches(
            unbuilt_cases.answer,
            {{ summary_keyword_regex('definitive_keywords.keyword') }}
        )
    group by
        unbuilt_cases.set_id, unbuilt_cases.file_sha256, unbuilt_cases.case_id

),

followup_hits as (

    -- follow-up expressions are the keywords of tag needs_followup
    select
        unbuilt_cases.set_id,
        unbuilt_cases.file_sha256,
        unbuilt_cases.case_id,
        string_agg(
            tag_keywords.keyword, ', ' order by tag_keywords.keyword
        ) as followup_expressions
    from unbuilt_cases
    inner join tag_keywords
        on
            tag_keywords.tag = 'needs_followup'
            and regexp_matches(
                unbuilt_cases.answer,
                {{ summary_keyword_regex('tag_keywords.keyword') }}
            )
    group by
        unbuilt_cases.set_id, unbuilt_cases.file_sha256, unbuilt_cases.case_id

),

joined as (

    select
        unbuilt_cases.*,
        coalesce(sec.n_summary_entities, 0) as n_summary_entities,
        coalesce(cec.n_context_entities, 0) as n_context_entities,
        coalesce(sec.n_supported_entities, 0) as n_supported_entities,
        sec.summary_entities,
        sec.unsupported_entities,
        coalesce(tag_counts.n_expected_tags, 0) as n_expected_tags,
        coalesce(tag_counts.n_covered_tags, 0) as n_covered_tags,
        tag_counts.covered_tags,
        tag_counts.missing_tags,
        tag_counts.unknown_tags,
        definitive_hits.definitive_expressions,
        followup_hits.followup_expressions,
        list_contains(unbuilt_cases.summary_tags, 'needs_followup')
            as has_followup_tag,
        followup_hits.case_id is not null as has_followup_expression
    from unbuilt_cases
    left join summary_entity_counts as sec
        on
            unbuilt_cases.set_id = sec.set_id
            and unbuilt_cases.file_sha256 = sec.file_sha256
            and unbuilt_cases.case_id = sec.case_id
    left join context_entity_counts as cec
        on
            unbuilt_cases.set_id = cec.set_id
            and unbuilt_cases.file_sha256 = cec.file_sha256
            and unbuilt_cases.case_id = cec.case_id
    left join tag_counts
        on
            unbuilt_cases.set_id = tag_counts.set_id
            and unbuilt_cases.file_sha256 = tag_counts.file_sha256
            and unbuilt_cases.case_id = tag_counts.case_id
    left join definitive_hits
        on
            unbuilt_cases.set_id = definitive_hits.set_id
            and unbuilt_cases.file_sha256 = definitive_hits.file_sha256
            and unbuilt_cases.case_id = definitive_hits.case_id
    left join followup_hits
        on
            unbuilt_cases.set_id = followup_hits.set_id
            and unbuilt_cases.file_sha256 = followup_hits.file_sha256
            and unbuilt_cases.case_id = followup_hits.case_id

),

scored as (

    select
        joined.*,
        case
            when joined.n_context_entities = 0
                then params.no_context_entities_score
            when joined.n_summary_entities = 0
                then params.no_summary_entities_score
            else joined.n_supported_entities / joined.n_summary_entities
        end as summary_accuracy_rule_score,
        case
            when joined.n_expected_tags = 0 then params.no_tags_score
            else joined.n_covered_tags / joined.n_expected_tags
        end as summary_risk_coverage_rule_score,
        case
            when joined.definitive_expressions is not null then 0.0 else 1.0
        end as summary_non_definitive_rule_score,
        case
            when joined.has_followup_tag = joined.has_followup_expression
                then 1.0
            else 0.0
        end as summary_needs_followup_rule_score
    from joined
    cross join params

),

final as (

    select
        scored.set_id,
        scored.file_sha256,
        scored.drop_date,
        scored.line_number,
        scored.case_id,
        scored.question,
        scored.answer,
        scored.ground_truth,
        scored.contexts,
        scored.n_contexts,
        scored.summary_intent,
        scored.summary_tags,
        ---------- summary_accuracy evidence
        scored.n_summary_entities,
        scored.n_context_entities,
        scored.n_supported_entities,
        scored.summary_entities,
        scored.unsupported_entities,
        ---------- summary_risk_coverage evidence
        scored.n_expected_tags,
        scored.n_covered_tags,
        scored.covered_tags,
        scored.missing_tags,
        scored.unknown_tags,
        ---------- non_definitive / needs_followup evidence
        scored.definitive_expressions,
        scored.followup_expressions,
        scored.has_followup_tag,
        scored.has_followup_expression,
        ---------- rule scores
        cast(scored.summary_accuracy_rule_score as double)
            as summary_accuracy_rule_score,
        cast(scored.summary_risk_coverage_rule_score as double)
            as summary_risk_coverage_rule_score,
        cast(scored.summary_non_definitive_rule_score as double)
            as summary_non_definitive_rule_score,
        cast(scored.summary_needs_followup_rule_score as double)
            as summary_needs_followup_rule_score,
        rule_snapshot.rule_snapshot,
        {{ scoring_version('summary') }} as scoring_version
    from scored
    cross join rule_snapshot

)

select * from final
