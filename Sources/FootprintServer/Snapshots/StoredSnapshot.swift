import FootprintWire

/// A screenshot kept with a snapshot: its bytes apart from the document.
public struct SnapshotImage: Sendable, Hashable {
    /// `jpeg` or `png`.
    public var format: String
    /// Its width in pixels.
    public var width: Int
    /// Its height in pixels.
    public var height: Int
    /// The encoded image.
    public var data: [UInt8]

    /// Creates an image.
    public init(format: String, width: Int, height: Int, data: [UInt8]) {
        self.format = format
        self.width = width
        self.height = height
        self.data = data
    }

    /// Its media type (`image/jpeg`, `image/png`).
    public var contentType: String { format == "png" ? "image/png" : "image/jpeg" }

    /// Its format and size.
    public var info: Info { Info(format: format, width: width, height: height) }

    /// An image's format and size, without its bytes.
    public struct Info: Sendable, Hashable {
        /// `jpeg` or `png`.
        public var format: String
        /// Its width in pixels.
        public var width: Int
        /// Its height in pixels.
        public var height: Int

        /// Creates a description.
        public init(format: String, width: Int, height: Int) {
            self.format = format
            self.width = width
            self.height = height
        }
    }
}

/// What the store keeps of one uploaded snapshot, before it has an id.
public struct SnapshotRecord: Sendable, Hashable {
    /// The project.
    public var projectId: Int64
    /// The connect session it was uploaded in.
    public var connectSessionId: Int64
    /// The device's id for it (`snapshot_id`): a resend with the same id is the same snapshot.
    public var snapshotId: String
    /// The device's anonymous id.
    public var anonymousId: String
    /// The device's user id, if any.
    public var userId: String?
    /// The page's name.
    public var page: String
    /// The app's version.
    public var appVersion: String
    /// When the device took it.
    public var takenAt: Timestamp
    /// When the server received it.
    public var receivedAt: Timestamp
    /// Its elements.
    public var elementCount: Int
    /// The validated snapshot as JSON, without its image data and its connect token.
    public var document: String
    /// The screenshot, if it came with one.
    public var image: SnapshotImage?

    /// Creates a record.
    public init(
        projectId: Int64, connectSessionId: Int64, snapshotId: String, anonymousId: String, userId: String?,
        page: String, appVersion: String, takenAt: Timestamp, receivedAt: Timestamp, elementCount: Int,
        document: String, image: SnapshotImage?
    ) {
        self.projectId = projectId
        self.connectSessionId = connectSessionId
        self.snapshotId = snapshotId
        self.anonymousId = anonymousId
        self.userId = userId
        self.page = page
        self.appVersion = appVersion
        self.takenAt = takenAt
        self.receivedAt = receivedAt
        self.elementCount = elementCount
        self.document = document
        self.image = image
    }

    /// Bytes it takes: the document and the image.
    public var bytes: Int { document.utf8.count + (image?.data.count ?? 0) }
}

/// A stored snapshot without its document and image: what lists show.
public struct SnapshotSummary: Sendable, Hashable {
    /// The store's id (`/v1/snapshots/{id}`).
    public var id: Int64
    /// The device's id for it.
    public var snapshotId: String
    /// The connect session it was uploaded in.
    public var connectSessionId: Int64
    /// The device's anonymous id.
    public var anonymousId: String
    /// The device's user id, if any.
    public var userId: String?
    /// The page's name.
    public var page: String
    /// The app's version.
    public var appVersion: String
    /// When the device took it.
    public var takenAt: Timestamp
    /// When the server received it.
    public var receivedAt: Timestamp
    /// Its elements.
    public var elementCount: Int
    /// The screenshot's format (`jpeg`, `png`), width and height; `nil`: none (draw a wireframe).
    public var image: SnapshotImage.Info?
    /// Bytes it takes (document and image).
    public var bytes: Int

    /// Creates a summary.
    public init(
        id: Int64, snapshotId: String, connectSessionId: Int64, anonymousId: String, userId: String?,
        page: String, appVersion: String, takenAt: Timestamp, receivedAt: Timestamp, elementCount: Int,
        image: SnapshotImage.Info?, bytes: Int
    ) {
        self.id = id
        self.snapshotId = snapshotId
        self.connectSessionId = connectSessionId
        self.anonymousId = anonymousId
        self.userId = userId
        self.page = page
        self.appVersion = appVersion
        self.takenAt = takenAt
        self.receivedAt = receivedAt
        self.elementCount = elementCount
        self.image = image
        self.bytes = bytes
    }

    /// The summary as the JSON API shows it.
    public var jsonValue: JSONValue {
        [
            "id": .int(id), "snapshotId": .string(snapshotId), "connectSession": .int(connectSessionId),
            "anonymousId": .string(anonymousId), "userId": userId.map(JSONValue.string) ?? .null,
            "page": .string(page), "appVersion": .string(appVersion), "takenAt": .string(takenAt.iso8601),
            "receivedAt": .string(receivedAt.iso8601), "elements": .int(Int64(elementCount)),
            "image": image.map { image in
                [
                    "format": .string(image.format), "width": .int(Int64(image.width)),
                    "height": .int(Int64(image.height)), "url": .string("/v1/snapshots/\(id)/image"),
                ]
            } ?? .null,
            "bytes": .int(Int64(bytes)),
        ]
    }
}

/// A stored snapshot with its document.
public struct StoredSnapshot: Sendable, Hashable {
    /// What lists show of it.
    public var summary: SnapshotSummary
    /// The validated snapshot as JSON, without its image data and connect token.
    public var document: String

    /// Creates a stored snapshot.
    public init(summary: SnapshotSummary, document: String) {
        self.summary = summary
        self.document = document
    }
}

/// One page of one app version, with its newest snapshot.
public struct ScreenSummary: Sendable, Hashable {
    /// The page's name.
    public var page: String
    /// The app's version.
    public var appVersion: String
    /// Snapshots kept of it.
    public var snapshotCount: Int
    /// The newest of them.
    public var latest: SnapshotSummary

    /// Creates a screen summary.
    public init(page: String, appVersion: String, snapshotCount: Int, latest: SnapshotSummary) {
        self.page = page
        self.appVersion = appVersion
        self.snapshotCount = snapshotCount
        self.latest = latest
    }
}

/// What storing a snapshot did.
public struct SnapshotWrite: Sendable, Hashable {
    /// The stored snapshot's id (the earlier one's on a resend).
    public var id: Int64
    /// `false` when the project already had a snapshot with this device id (nothing changed).
    public var created: Bool
    /// Older snapshots dropped to stay within ``SnapshotRetention``.
    public var dropped: Int

    /// Creates an outcome.
    public init(id: Int64, created: Bool, dropped: Int) {
        self.id = id
        self.created = created
        self.dropped = dropped
    }
}

/// How many snapshots are kept: past a bound, the oldest go.
public struct SnapshotRetention: Sendable, Hashable {
    /// Snapshots kept per connect session. Default 200.
    public var perSession = 200
    /// Snapshots kept per project (the newest of each page and app version go last). Default 2,000.
    public var perProject = 2000
    /// Bytes of documents and images kept per project. Default 256 MiB.
    public var bytesPerProject = 256 << 20

    /// Creates the default bounds.
    public init() {}
}

/// A tap a connect session's device made (an `$element_click` event), for the live view.
public struct DeviceClick: Sendable, Hashable {
    /// The event's store sequence (the live view's cursor).
    public var sequence: Int64
    /// When it happened (corrected device time).
    public var time: Timestamp
    /// The device.
    public var anonymousId: String
    /// The page it was on.
    public var page: String?
    /// Its exact path.
    public var path: String
    /// Its similar path.
    public var similarPath: String?
    /// The element's text.
    public var text: String?

    /// Creates a click.
    public init(
        sequence: Int64, time: Timestamp, anonymousId: String, page: String?, path: String,
        similarPath: String?,
        text: String?
    ) {
        self.sequence = sequence
        self.time = time
        self.anonymousId = anonymousId
        self.page = page
        self.path = path
        self.similarPath = similarPath
        self.text = text
    }

    /// The click as the JSON API shows it.
    public var jsonValue: JSONValue {
        [
            "sequence": .int(sequence), "time": .string(time.iso8601), "anonymousId": .string(anonymousId),
            "page": page.map(JSONValue.string) ?? .null, "path": .string(path),
            "similarPath": similarPath.map(JSONValue.string) ?? .null,
            "text": text.map(JSONValue.string) ?? .null,
        ]
    }
}

/// A page of a device's clicks and where the next page starts.
public struct DeviceClicks: Sendable, Hashable {
    /// The clicks, oldest first.
    public var clicks: [DeviceClick]
    /// Pass it as the next call's `after`: every event up to it has been looked at.
    public var cursor: Int64

    /// Creates a page of clicks.
    public init(clicks: [DeviceClick], cursor: Int64) {
        self.clicks = clicks
        self.cursor = cursor
    }
}
