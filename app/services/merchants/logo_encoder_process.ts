/*
| Entry of the logo encoder's child process (app/platform/child_workers.ts,
| app/services/merchants/logo_image.ts): sharp decodes and encodes here, on this
| process's own threads, at a lower priority, one image at a time.
*/
import { answerRequests, lowerPriority } from '#platform/child_workers'

lowerPriority()
// Only now: the threads libvips starts inherit the lowered priority.
const { default: sharp } = await import('sharp')
const { encodeLogo } = await import('#services/merchants/logo_encoder')

// One libvips worker thread per image, so one image takes at most about one core.
sharp.concurrency(1)
// Nothing is decoded twice: no operation cache to hold the last upload's pixels.
sharp.cache(false)

answerRequests(encodeLogo)
