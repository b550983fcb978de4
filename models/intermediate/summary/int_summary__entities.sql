-- One row per distinct entity found in a case's summary (the answer) or in
-- its contexts (SPEC 6 summary_accuracy): dates, quantities (percent,
-- currency, duration; units and multipliers from seed summary_entity_units)
-- and insurance keywords (seed summary_entity_keywords). entity_key is the
-- normalized form compared between summary and contexts.
with

cases as (

    select * from {{ ref('int_summary__cases_current') }}

),

units as (

    select
        {{ nfc('unit') }} as unit,
        position,
        entity_type,
        canonical_unit,
        multiplier
    from {{ ref('summary_entity_units') }}

),

entity_keywords as (

    select
        {{ nfc('keyword') }} as keyword,
        language
    from {{ ref('summary_entity_keywords') }}

),

texts as (

    select
        set_id,
        file_sha256,
        case_id,
        'summary' as text_source,
        answer as source_text
    from cases
    union all
    select
        set_id,
        file_sha256,
        case_id,
        'context' as text_source,
        unnest(contexts) as source_text
    from cases

),

unit_alternations as (

    -- longest unit first, so 만원 wins over 원 and years over year
    select
        string_agg(
            regexp_escape(lower(unit)), '|' order by length(unit) desc, unit
        ) filter (where position = 'prefix') as prefix_alt,
        string_agg(
            regexp_escape(lower(unit)), '|' order by length(unit) desc, unit
        ) filter (where position = 'suffix') as suffix_alt
    from units

),

quantity_pattern as (

    -- a number with a prefix unit ($, ₩) and optional suffix unit, or a
    -- number with a suffix unit; a bare number is not an entity
    select
        '(?i)(?:(?:' || prefix_alt || ')\s*' || {{ summary_number_regex() }}
        || '(?:\s*(?:' || suffix_alt || '))?|'
        || {{ summary_number_regex() }} || '\s*(?:' || suffix_alt || '))'
            as quantity_regex
    from unit_alternations

),

date_matches as (

    select
        set_id,
        file_sha256,
        case_id,
        text_source,
        unnest(
            regexp_extract_all(source_text, {{ summary_date_regex() }})
        ) as match_text
    from texts

),

date_parts as (

    select
        *,
        regexp_split_to_array(match_text, '[-./]') as parts
    from date_matches

),

date_entities as (

    select
        set_id,
        file_sha256,
        case_id,
        text_source,
        'date' as entity_type,
        match_text,
        'date:' || parts[1] || lpad(parts[2], 2, '0') || lpad(parts[3], 2, '0')
            as entity_key
    from date_parts

),

quantity_matches as (

    -- dates are blanked first so their digits are not read as numbers
    select
        texts.set_id,
        texts.file_sha256,
        texts.case_id,
        texts.text_source,
        unnest(regexp_extract_all(
            regexp_replace(
                texts.source_text, {{ summary_date_regex() }}, ' ', 'g'
            ),
            quantity_pattern.quantity_regex
        )) as match_text
    from texts
    cross join quantity_pattern

),

quantity_split as (

    -- units hold no digits: what precedes the number is the prefix unit,
    -- what follows it the suffix unit
    select
        *,
        lower(trim(regexp_extract(
            match_text, '^(\D*?)' || {{ summary_number_regex() }}, 1
        ))) as prefix_text,
        regexp_extract(match_text, {{ summary_number_regex() }}) as number_text,
        lower(trim(regexp_extract(
            match_text, {{ summary_number_regex() }} || '(\D*)$', 1
        ))) as suffix_text
    from quantity_matches

),

quantity_entities as (

    select
        quantity_split.set_id,
        quantity_split.file_sha256,
        quantity_split.case_id,
        quantity_split.text_source,
        coalesce(suffix_unit.entity_type, prefix_unit.entity_type)
            as entity_type,
        quantity_split.match_text,
        coalesce(suffix_unit.entity_type, prefix_unit.entity_type) || ':'
        || {{ trim_decimal(
            "try_cast(replace(quantity_split.number_text, ',', '')"
            ~ " as decimal(28, 6))"
            ~ " * cast(coalesce(suffix_unit.multiplier, prefix_unit.multiplier)"
            ~ " as decimal(9, 0))"
        ) }} || ':'
        || coalesce(suffix_unit.canonical_unit, prefix_unit.canonical_unit)
            as entity_key
    from quantity_split
    left join units as prefix_unit
        on
            quantity_split.prefix_text = lower(prefix_unit.unit)
            and prefix_unit.position = 'prefix'
    left join units as suffix_unit
        on
            quantity_split.suffix_text = lower(suffix_unit.unit)
            and suffix_unit.position = 'suffix'

),

keyword_entities as (

    select
        texts.set_id,
        texts.file_sha256,
        texts.case_id,
        texts.text_source,
        'keyword' as entity_type,
        entity_keywords.keyword as match_text,
        'keyword:' || lower(trim(entity_keywords.keyword)) as entity_key
    from texts
    inner join entity_keywords
        on regexp_matches(
            texts.source_text,
            {{ summary_keyword_regex('entity_keywords.keyword') }}
        )

),

all_entities as (

    select * from date_entities
    union all
    select * from quantity_entities
    union all
    select * from keyword_entities

),

final as (

    select
        set_id,
        file_sha256,
        case_id,
        text_source,
        entity_type,
        entity_key,
        min(match_text) as example_text
    from all_entities
    where entity_key is not null
    group by set_id, file_sha256, case_id, text_source, entity_type, entity_key

)

select * from final
