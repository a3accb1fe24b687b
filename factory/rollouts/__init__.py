"""Rollout triage: failed episodes classed as world, task or model defects, with the evidence for
each decision; world defects go to stage one's repairer and task defects to stage two's reward-gen
and gates, after which the affected rollouts are classed again (`make triage`)."""
