import Foundation

extension DeliveryOutcome {
    /// Reads an HTTP response (or its absence) as the response policy needs it.
    ///
    /// A 2xx body may list refused events as `{"rejected": [{"messageId": "…", "reason": "…"}]}`
    /// (`errors` is read too, and `code` or `message` stand in for `reason`); those whose
    /// `messageId` is in `rowsByMessageId` are reported as refused.
    /// - Parameters:
    ///   - response: the response, `nil` after a network failure.
    ///   - rowsByMessageId: the row of each event in the batch.
    ///   - now: used to read a `Retry-After` given as an HTTP date.
    init(response: HTTPResponse?, rowsByMessageId: [String: Int64], now: Timestamp) {
        guard let response else {
            self = .retryable(status: nil, retryAfterMilliseconds: nil)
            return
        }
        switch response.status {
        case 200..<300:
            self = .accepted(rejected: Self.rejectedRows(in: response.body, rowsByMessageId: rowsByMessageId))
        case 400, 422:
            let reason = String(decoding: response.body.prefix(300), as: UTF8.self)
            self = .badRequest(status: response.status, reason: reason.isEmpty ? "bad request" : reason)
        case 413:
            self = .payloadTooLarge
        case 401, 403:
            self = .unauthorized(status: response.status)
        default:
            self = .retryable(
                status: response.status,
                retryAfterMilliseconds: response.headers["retry-after"].flatMap {
                    Self.retryAfter($0, now: now)
                })
        }
    }

    /// A `Retry-After` value (delay in seconds, or an HTTP date) in milliseconds from `now`.
    static func retryAfter(_ value: String, now: Timestamp) -> Int64? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int64(text) {
            // Kept from overflowing; the policy caps the wait (`maximumRetryAfterMilliseconds`).
            return seconds >= 0 ? min(seconds, Int64.max / 1000) * 1000 : nil
        }
        guard let date = Timestamp(httpDate: text, now: now) else { return nil }
        return max(0, date.millisecondsSince1970 - now.millisecondsSince1970)
    }

    static func rejectedRows(in body: [UInt8], rowsByMessageId: [String: Int64]) -> [Int64: String] {
        guard !body.isEmpty, let json = try? JSONParser().parse(body) else { return [:] }
        let items = json["rejected"]?.arrayValue ?? json["errors"]?.arrayValue ?? []
        var rows: [Int64: String] = [:]
        for item in items {
            guard let messageId = item["messageId"]?.stringValue, let row = rowsByMessageId[messageId] else {
                continue
            }
            let reason = [item["reason"], item["message"], item["code"]].lazy.compactMap { $0?.stringValue }
                .first
            rows[row] = reason ?? "refused by the server"
        }
        return rows
    }
}
