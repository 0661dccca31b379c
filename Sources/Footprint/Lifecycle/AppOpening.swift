/// What opened the app, when the system says: the launch options at a cold start, or the URL of
/// a deep link. Sent with `Application Opened` and `Deep Link Opened`.
public struct AppOpening: Sendable, Hashable {
    /// The URL the app was opened with (`url`). Default `nil`.
    public var url: String?
    /// The bundle id of the app that opened it (`referring_application`). Default `nil`.
    public var referringApplication: String?
    /// The push notification's payload that opened it (`notification`); left out of the event
    /// when its JSON is over ``maximumNotificationBytes``. Default `nil`.
    public var notification: JSONObject?

    /// The largest notification payload sent, in bytes of JSON: 4 KB, Apple's own limit for a
    /// remote notification.
    public static let maximumNotificationBytes = 4096

    /// Creates an opening.
    /// - Parameters:
    ///   - url: the URL the app was opened with. Default `nil`.
    ///   - referringApplication: the bundle id of the app that opened it. Default `nil`.
    ///   - notification: the payload of the notification that opened it. Default `nil`.
    public init(url: String? = nil, referringApplication: String? = nil, notification: JSONObject? = nil) {
        self.url = url
        self.referringApplication = referringApplication
        self.notification = notification
    }

    /// The event properties it adds (`url`, `referring_application`, `notification`).
    var properties: JSONObject {
        var properties: JSONObject = [:]
        if let url { properties["url"] = .string(url) }
        if let referringApplication { properties["referring_application"] = .string(referringApplication) }
        if let notification {
            let value = JSONValue.object(notification)
            if JSONWriter.bytes(value).count <= Self.maximumNotificationBytes {
                properties["notification"] = value
            }
        }
        return properties
    }
}
