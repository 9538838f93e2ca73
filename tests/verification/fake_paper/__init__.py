"""A one-module, one-claim fake paper that the mutation-testing tests mutate."""
