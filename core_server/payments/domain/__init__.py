"""Pure payment rules: charge states, fees, refunds, disputes, checkout input, the sandbox simulator."""
