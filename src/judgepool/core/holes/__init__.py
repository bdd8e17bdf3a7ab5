"""The unjudged documents of the runs' top k: what their grades probably are,
and which to judge next.

- `priors`: the rank prior and a model's labels calibrated on the judgments;
  `hole_prior`: the runs prior (which compared runs retrieved a hole and
  where, and its query's own effect, fitted on the judged documents);
  `draws`: seeded joint draws of every hole's grade; `prior_draws`: the
  draws with the runs prior's parameters drawn too, and the prior's check;
- `settle`: the settle order and a team's batch; `settle_draws`: its draws,
  one query at a time, with what each hole's grade would do; `hole_order`:
  in what order to read them;
- `sample_design` and `sample_estimate`: a probability sample of the holes,
  and the estimates from it that hold whatever the prior says.
"""
