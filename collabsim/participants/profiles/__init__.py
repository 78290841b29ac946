"""Default collaborator profiles (package data: one YAML file per profile key)."""
