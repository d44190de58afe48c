import { mkdir, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { BaseCommand } from '@adonisjs/core/ace'
import type { CommandOptions } from '@adonisjs/core/types/ace'

/**
 * Regenerates docs/openapi.json and the typed client (clients/portal-api/schema.d.ts)
 * from the code: the endpoint declarations beside the controllers, the VineJS
 * validators and the response schemas beside the transformers. Commit both files
 * with the change.
 */
export default class OpenapiGenerate extends BaseCommand {
  static commandName = 'openapi:generate'
  static description = 'Write docs/openapi.json and the openapi-typescript client types'
  static options: CommandOptions = { startApp: true }

  async run() {
    const { renderArtifacts, artifactPath, ARTIFACTS } = await import('#openapi/artifacts')
    const { OPERATIONS } = await import('#openapi/document')
    const rendered = await renderArtifacts()
    for (const name of Object.keys(ARTIFACTS) as (keyof typeof ARTIFACTS)[]) {
      const path = artifactPath(name)
      await mkdir(dirname(path), { recursive: true })
      await writeFile(path, rendered[name])
    }
    this.logger.log(
      JSON.stringify({ written: Object.values(ARTIFACTS), operations: OPERATIONS.length })
    )
  }
}
