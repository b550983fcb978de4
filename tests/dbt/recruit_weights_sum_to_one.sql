-- The weighted total of the recruit agent (SPEC 4.4) is on the 0-5 scale
-- only when seed recruit_weights has one weight in [0, 1] per metric and the
-- weights sum to 1.
select
    count(*) as n_rows,
    count(distinct metric) as n_metrics,
    sum(weight) as total_weight
from {{ ref('recruit_weights') }}
having
    abs(sum(weight) - 1) > 1e-9
    or count(*) <> 5
    or count(distinct metric) <> 5
    or count(*) filter (where not coalesce(weight between 0 and 1, false)) > 0
