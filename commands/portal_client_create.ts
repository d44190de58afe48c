import { flags } from '@adonisjs/core/ace'
import { OperatorCommand, OperatorInputError } from '#console/operator_command'
import { createPortalClientInput } from '#validators/operator'
import { createPortalClient } from '#auth/portal_clients'

export default class PortalClientCreate extends OperatorCommand {
  static commandName = 'portal-client:create'
  static description =
    "Create the Portal application's credentials; prints {client_id, client_secret} once"

  @flags.string({ description: 'Application name' }) declare name: string
  @flags.array({ description: 'Allowed Origin (repeatable), e.g. https://portal.example' })
  declare origin: string[]

  protected async execute() {
    const input = await createPortalClientInput.validate({
      name: this.name,
      origin: this.origin ?? [],
    })
    const origins = input.origin.map((value) => {
      let url: URL
      try {
        url = new URL(value)
      } catch {
        throw new OperatorInputError(`--origin ${value} is not a URL`)
      }
      if (!['http:', 'https:'].includes(url.protocol) || url.origin !== value.replace(/\/$/, '')) {
        throw new OperatorInputError(
          `--origin ${value} must be a bare origin such as https://portal.example`
        )
      }
      return url.origin
    })
    const { client, clientSecret } = await createPortalClient({ name: input.name, origins })
    return { client_id: client.clientId, client_secret: clientSecret }
  }
}
