/*
| The words of VineJS's own rules, for every validator of the project (endpoint inputs
| through input.ts, operator commands through operator.ts): a 422 says the rule that
| failed. VineJS's default for an enum, "The selected environment is invalid", does not
| say which values are allowed; here it lists them. The other rules the validators use
| keep VineJS's words, as sentences like the project's own messages.
|
| VineJS's `regex` rule cannot say its rule in words ("The per_page field format is
| invalid"), so no validator uses it: `matches()` (rules/pattern.ts) carries a
| description of its pattern. The project's own rules write their message in full and
| use rule names of their own, which this provider never rewrites.
*/
import vine, { SimpleMessagesProvider } from '@vinejs/vine'
import type { FieldContext, SchemaTypes } from '@vinejs/vine/types'

class RuleMessages extends SimpleMessagesProvider {
  getMessage(rawMessage: string, rule: string, field: FieldContext, args?: Record<string, any>) {
    if (rule === 'enum' && Array.isArray(args?.choices)) {
      args = { ...args, choices: args.choices.join(', ') }
    }
    return super.getMessage(rawMessage, rule, field, args)
  }
}

export const ruleMessages = new RuleMessages({
  'enum': 'The {{ field }} field must be one of: {{ choices }}.',
  'required': 'The {{ field }} field must be defined.',
  'string': 'The {{ field }} field must be a string.',
  'number': 'The {{ field }} field must be a number.',
  'object': 'The {{ field }} field must be an object.',
  'array': 'The {{ field }} field must be an array.',
  'email': 'The {{ field }} field must be a valid email address.',
  'minLength': 'The {{ field }} field must have at least {{ min }} characters.',
  'maxLength': 'The {{ field }} field must have at most {{ max }} characters.',
  'fixedLength': 'The {{ field }} field must be {{ size }} characters long.',
  'withoutDecimals': 'The {{ field }} field must be an integer.',
  'range': 'The {{ field }} field must be from {{ min }} to {{ max }}.',
  'confirmed': 'The {{ originalField }} field and {{ otherField }} field must be the same.',
  'array.minLength': 'The {{ field }} field must have at least {{ min }} items.',
})

/** `vine.create()` with the project's messages. */
export function createValidator<Properties extends Record<string, SchemaTypes>>(
  properties: Properties
) {
  const validator = vine.create(vine.object(properties))
  validator.messagesProvider = ruleMessages
  return validator
}
