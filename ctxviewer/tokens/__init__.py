"""Token accounting by the endpoint's rule: profiles (model name -> encoding, limits, framing),
raw-request counting, and the per-trace breakdown that adds up to the counted total. No Qt here."""
