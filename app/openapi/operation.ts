/*
| The document's Operation Object of one operation (app/openapi/operation_spec.ts):
| its description with the access and limits paragraphs, security, parameters, body,
| and responses, the declared ones and the errors it answers
| (app/openapi/operation_errors.ts).
*/
import { ACCESS_TEXT, SECURITY } from '#openapi/access'
import { errorResponses } from '#openapi/operation_errors'
import { limitsExtension, limitsParagraph } from '#openapi/operation_limits'
import type { HeaderSpec, OperationSpec, ResponseSpec } from '#openapi/operation_spec'

export function toOperationObject(spec: OperationSpec) {
  const envelope = spec.envelope ?? true
  const parsesBody = spec.parsesBody ?? (envelope && spec.path.startsWith('/api/v1/'))

  const responses: Record<string, object> = {}
  for (const [status, response] of Object.entries(spec.responses)) {
    responses[status] = responseObject(response, spec.cacheHeaders)
  }
  for (const [status, response] of Object.entries(errorResponses(spec, envelope, parsesBody))) {
    responses[status] = responseObject(response)
  }

  const description = [
    spec.description,
    `**Access:** ${ACCESS_TEXT[spec.access]}`,
    limitsParagraph(spec.limits),
  ]
    .filter(Boolean)
    .join('\n\n')

  const parameters = [
    ...(spec.pathParameters ?? []).map((name) => ({ $ref: `#/components/parameters/${name}` })),
    ...(spec.query ?? []),
  ]
  return {
    'operationId': spec.operationId,
    'tags': [spec.tag],
    'summary': spec.summary,
    description,
    'security': SECURITY[spec.access],
    ...(parameters.length ? { parameters } : {}),
    ...(spec.body
      ? {
          requestBody: {
            required: spec.body.required ?? true,
            ...(spec.body.description ? { description: spec.body.description } : {}),
            content: {
              [spec.body.mediaType ?? 'application/json']: {
                schema: spec.body.schema,
                ...(spec.body.encoding ? { encoding: spec.body.encoding } : {}),
              },
            },
          },
        }
      : {}),
    responses,
    'x-limits': limitsExtension(spec.limits),
  }
}

/** A response that states its own Cache-Control (the mailed link's redirect) keeps it. */
function responseObject(response: ResponseSpec, cacheHeaders?: Record<string, HeaderSpec>) {
  const declared = response.headers ?? {}
  const headers: Record<string, HeaderSpec> =
    cacheHeaders && !declared['Cache-Control'] ? { ...cacheHeaders, ...declared } : { ...declared }
  const content =
    response.content ??
    (response.schema ? { 'application/json': { schema: response.schema } } : undefined)
  return {
    description: response.description,
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(content ? { content } : {}),
  }
}
