/*
| A database id as text: a positive integer of at most 16 digits, no sign, no leading
| zero (so within Number.MAX_SAFE_INTEGER's digits and one spelling per id). Token
| identifiers, OAuth client ids, page numbers and operator flags are read with it.
*/
export const DECIMAL_ID = /^[1-9][0-9]{0,15}$/
