/*
| The preset dictionary of compact seals (evidence_cipher.ts, encoding 1): text that
| evidence bodies and stored projections repeat, so that deflate can refer to it from
| a body's first byte (a 200-byte body alone has nothing to refer back to).
|
| Never edit this text: every stored seal of encoding 1 needs exactly these bytes to
| open. A better dictionary is a new constant under a new encoding number, beside this one.
| Deflate prefers matches near the end of the dictionary, so the commonest text is last.
*/
export const SEAL_DICTIONARY_1 = Buffer.from(
  [
    '"omitted_unsupported_content_type","omitted_binary","omitted_sensitive",',
    '"omitted_oversize","omitted_non_json","omitted_invalid_json","omitted_unsupported_shape",',
    '"omitted_no_permitted_fields","captured_invalid_json_text","captured_sanitized",',
    '"snapshot_limit_exceeded","snapshot_schema_unsupported","snapshot_unreadable",',
    '"snapshot_unavailable","body_not_captured","legacy_body_unverified",',
    '"response_fields_excluded","payment_url_excluded","merchant_response_field_allowlist",',
    '"exhausted","delivering","delivered","failed","pending","no_response","empty",',
    '"timestamp":"20","error_code":"","message":"","data":{"status":"',
    '"is_repeated_request":false,"capture_stage":"prepared_for_return","body_capture_status":',
    '"delivery":{"state":"","duration_ms":},"response":null,"delivery":null}',
    '"success_url":"https://","failure_url":"https://","cancel_url":"https://","callback_url":"https://",',
    '"customer":{"email":"","name":"","phone":"+63"},"description":"","metadata":{},',
    '"REJECTED","PENDING","status":"OK","captured","omitted","unavailable","purged",',
    '"payment_status":"PAID","payment_brand":"gcash","channel":1,"is_card_payment":false,',
    '{"capture_status":"available","payload":{"merchant_transaction_id":"',
    '","amount":"00.00","currency":"PHP","payment_brand":"',
    '"},"omissions":[{"field_path":"*","reason_code":"portal_field_allowlist"}]',
    ',"response":null,"delivery":null}{"merchant_transaction_id":"ORD-","amount":"',
  ].join('')
)
