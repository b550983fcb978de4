"""Exchange formats: the published warehouse written in other projects'
formats, so its results can be read by tools that never open DuckDB.
``every_eval_ever``: EvalEval's Every Eval Ever aggregate and instance files
(``agent-eval export --format every-eval-ever``)."""
