import { flags } from '@adonisjs/core/ace'
import { OperatorCommand } from '#console/operator_command'
import { createUserInput } from '#validators/operator'
import { createUser } from '#services/users/create_user'

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
    const password = await this.readPassword()
    const input = await createUserInput.validate({
      merchant: this.merchant,
      email: this.email,
      username: this.username,
      first_name: this.firstName,
      last_name: this.lastName,
      role: this.role,
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

  /** From a pipe: everything up to the first newline. From a terminal: a hidden prompt. */
  private async readPassword(): Promise<string> {
    if (this.passwordInput.isTTY) return this.prompt.secure('Password')
    const chunks: Buffer[] = []
    for await (const chunk of this.passwordInput) chunks.push(Buffer.from(chunk))
    return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0]
  }
}
