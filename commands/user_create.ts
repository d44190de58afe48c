import { flags } from '@adonisjs/core/ace'
import { OperatorCommand } from '#console/operator_command'
import { createUserFlagsInput, createUserInput } from '#validators/operator'
import { createUser } from '#services/users/create_user'

/** More than any password (128 characters of at most 4 bytes) and its line ending. */
const PASSWORD_INPUT_BYTES = 1024

export default class UserCreate extends OperatorCommand {
  static commandName = 'user:create'
  static description = 'Create a Portal user; the password is read from standard input'

  @flags.string({ description: 'Merchant id' }) declare merchant: string
  @flags.string({ description: 'Login email' }) declare email: string
  @flags.string({ description: 'Username (defaults to the email)' }) declare username?: string
  @flags.string({ description: 'First name' }) declare firstName: string
  @flags.string({ description: 'Last name' }) declare lastName: string
  @flags.string({ description: 'administrator or developer' }) declare role: string
  @flags.boolean({ description: 'Create inactive' }) declare inactive?: boolean

  /** Where the password is read from: standard input (tests give their own stream). */
  passwordInput: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin

  protected async execute() {
    const given = {
      merchant: this.merchant,
      email: this.email,
      username: this.username,
      first_name: this.firstName,
      last_name: this.lastName,
      role: this.role,
    }
    // Flags first: a mistyped command fails at once instead of waiting for a password.
    await createUserFlagsInput.validate(given)
    const password = await this.readPassword()
    const input = await createUserInput.validate({
      ...given,
      password,
      password_confirmation: password,
    })
    const user = await createUser({
      merchantId: input.merchant,
      email: input.email,
      username: input.username,
      firstName: input.first_name,
      lastName: input.last_name,
      role: input.role,
      password: input.password,
      isActive: this.inactive !== true,
    })
    return { id: user.id, reference_id: user.referenceId }
  }

  protected inputName(field: string) {
    return field.startsWith('password') ? 'password (standard input)' : super.inputName(field)
  }

  /**
   * From a pipe: its first line, read up to the newline and no further (a pipe that
   * stays open, or `yes`, must not be read to its end), at most PASSWORD_INPUT_BYTES.
   * From a terminal: a hidden prompt.
   */
  private async readPassword(): Promise<string> {
    if (this.passwordInput.isTTY) return this.prompt.secure('Password')
    const chunks: Buffer[] = []
    let length = 0
    for await (const chunk of this.passwordInput) {
      const bytes = Buffer.from(chunk)
      const newline = bytes.indexOf(0x0a)
      chunks.push(newline === -1 ? bytes : bytes.subarray(0, newline))
      length += bytes.length
      if (newline !== -1 || length >= PASSWORD_INPUT_BYTES) break
    }
    return Buffer.concat(chunks)
      .subarray(0, PASSWORD_INPUT_BYTES)
      .toString('utf8')
      .replace(/\r$/, '')
  }
}
