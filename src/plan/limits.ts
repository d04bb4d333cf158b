// Defaults of the safety rules, apart so that the command line's option module (loaded by
// every verb, also `--version`) need not load the rules and the kinds.
export const DEFAULT_MAX_DELETE_PERCENT = 30;
/** Below this many live items of a kind, the delete share rule does not apply. */
export const DELETE_SHARE_MIN_ITEMS = 10;
/** Changes previewed at most in one plan by default (`--max-previews`): each preview costs requests under the rate limit. */
export const DEFAULT_MAX_PREVIEWS = 100;
