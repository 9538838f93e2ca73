# The README's example registers a paper of its own when imported: pytest's --doctest-modules
# must not import it at collection (the lint tests would then see a paper without a note).
collect_ignore = ["user_claims_example.py"]
