"""The run's settings: the option table, value types, the YAML file and loading from a pytest config."""
