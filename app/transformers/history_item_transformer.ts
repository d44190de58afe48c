import { PortalTransformer } from '#transformers/portal_transformer'
import type { HistoryItem } from '#shapes/collections'

/** portal-api.md › History item, field by field, from the projection (app/services/collections/history). */
export default class HistoryItemTransformer extends PortalTransformer<HistoryItem> {
  toObject(): HistoryItem {
    const item = this.resource
    return {
      id: item.id,
      transaction_id: item.transaction_id,
      environment: item.environment,
      event_type: item.event_type,
      direction: item.direction,
      captured_at: item.captured_at,
      capture_format: item.capture_format,
      capture_status: item.capture_status,
      event_id: item.event_id,
      attempt_number: item.attempt_number,
      http_status: item.http_status,
      delivery: item.delivery,
      response: item.response,
      payload: item.payload,
      omissions: item.omissions,
      retain_until: item.retain_until,
      purged_at: item.purged_at,
    }
  }
}
