/** model_config key of a continuation row: how many of its first messages are the compressed context (not shown again on replay). */
export const DISPLAY_FROM_KEY = "acp_display_from";
