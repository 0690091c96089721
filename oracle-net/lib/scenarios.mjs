export const SCENARIOS = {}
