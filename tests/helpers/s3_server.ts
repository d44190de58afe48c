/*
| An S3-protocol server for the DRIVE_DISK=s3 tests: s3rver (objects on a temporary
| directory, spoken to over HTTP by the AWS SDK), started on a free port by the test.
| s3rver serves unsigned requests and does not check Signature V4, where a private
| AWS bucket refuses both; the gate in front of it does that much, so a logo URL that
| serves the image has to be a valid presigned URL, as it would on AWS.
*/
import { createHmac, createHash, timingSafeEqual } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  S3Client,
} from '@aws-sdk/client-s3'

/** The one key pair s3rver knows. */
const ACCESS_KEY_ID = 'S3RVER'
const SECRET_ACCESS_KEY = 'S3RVER'
const REGION = 'us-east-1'

/** The part of s3rver's API used here (the package ships no types). */
interface S3rverInstance {
  configureBuckets(): Promise<void>
  callback(): (request: IncomingMessage, response: ServerResponse) => void
}
type S3rverClass = new (options: {
  silent: boolean
  directory: string
  configureBuckets: Array<{ name: string }>
}) => S3rverInstance
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest()
const rfc3986 = (text: string) =>
  encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`
  )

/**
 * Why a presigned (query-signed) request is refused, or null when its AWS Signature V4
 * is right for the key pair and it has not expired.
 */
function presignedRefusal(request: IncomingMessage, url: URL): string | null {
  const query = url.searchParams
  const date = query.get('X-Amz-Date') ?? ''
  const expires = Number(query.get('X-Amz-Expires'))
  const [accessKeyId, ...scopeParts] = (query.get('X-Amz-Credential') ?? '').split('/')
  if (accessKeyId !== ACCESS_KEY_ID || query.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') {
    return 'InvalidAccessKeyId'
  }
  const signedAt = Date.parse(
    date.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z')
  )
  if (!Number.isFinite(signedAt) || !(expires > 0) || signedAt + expires * 1000 < Date.now()) {
    return 'AccessDenied'
  }
  const signedHeaders = query.get('X-Amz-SignedHeaders') ?? ''
  const canonicalQuery = [...query]
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => `${rfc3986(name)}=${rfc3986(value)}`)
    .sort()
    .join('&')
  const canonicalHeaders = signedHeaders
    .split(';')
    .map((name) => `${name}:${String(request.headers[name] ?? '').trim()}\n`)
    .join('')
  const canonicalRequest = [
    request.method,
    url.pathname,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders,
    'UNSIGNED-PAYLOAD',
  ].join('\n')
  const scope = scopeParts.join('/')
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    date,
    scope,
    createHash('sha256').update(canonicalRequest).digest('hex'),
  ].join('\n')
  const signingKey = scopeParts.reduce<Buffer | string>(
    (key, part) => hmac(key, part),
    `AWS4${SECRET_ACCESS_KEY}`
  )
  const expected = hmac(signingKey, stringToSign)
  const given = Buffer.from(query.get('X-Amz-Signature') ?? '', 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
    ? null
    : 'SignatureDoesNotMatch'
}

function refuse(response: ServerResponse, code: string) {
  response.writeHead(403, { 'Content-Type': 'application/xml' })
  response.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code></Error>`)
}

export interface StoredObject {
  bytes: Buffer
  contentType: string | undefined
  cacheControl: string | undefined
}

/** Starts s3rver behind the private-bucket gate with one empty bucket. */
export async function startS3Server(bucket = 'logos-bucket') {
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'))
  const s3rver = new S3rver({ silent: true, directory, configureBuckets: [{ name: bucket }] })
  await s3rver.configureBuckets()
  const handle = s3rver.callback()
  const server = createServer((request, response) => {
    const url = new URL(request.url!, 'http://s3')
    if (url.searchParams.has('X-Amz-Signature')) {
      const refusal = presignedRefusal(request, url)
      if (refusal) return refuse(response, refusal)
    } else if (!request.headers.authorization) {
      return refuse(response, 'AccessDenied')
    }
    handle(request, response)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const client = new S3Client({
    region: REGION,
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY },
  })

  return {
    endpoint,
    bucket,
    /** What the application needs for DRIVE_DISK=s3 against this server. */
    appEnv: {
      DRIVE_DISK: 's3',
      AWS_ACCESS_KEY_ID: ACCESS_KEY_ID,
      AWS_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY,
      AWS_REGION: REGION,
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint,
      S3_FORCE_PATH_STYLE: 'true',
    },
    /** Every key in the bucket, sorted. */
    async keys(): Promise<string[]> {
      const listing = await client.send(new ListObjectsV2Command({ Bucket: bucket }))
      return (listing.Contents ?? []).map((object) => object.Key!).sort()
    },
    /** Deletes every object (between tests sharing the server). */
    async clear() {
      for (const key of await this.keys()) {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }))
      }
    },
    /** An object as the S3 API returns it, or null when there is none. */
    async object(key: string): Promise<StoredObject | null> {
      try {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }))
        return {
          bytes: Buffer.from(await object.Body!.transformToByteArray()),
          contentType: object.ContentType,
          cacheControl: object.CacheControl,
        }
      } catch (error) {
        if (error instanceof NoSuchKey) return null
        throw error
      }
    },
    async close() {
      client.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await rm(directory, { recursive: true, force: true })
    },
  }
}

export type S3Server = Awaited<ReturnType<typeof startS3Server>>
