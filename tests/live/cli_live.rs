//! `scenetree live URL …` against the real data layer.
