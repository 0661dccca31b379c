import FootprintWire
import Testing

@testable import FootprintServer

/// ``MetadataCache`` over a metadata source in memory and a clock the test moves: when it reads,
/// what it answers, and what it answers while the source cannot be reached.
struct MetadataCacheTests {
    /// The metadata a cache reads: its revision moves with every change.
    struct Source {
        var revision: Int64 = 1
        var projects: [Project] = []
        var configs: [Int64: RemoteConfigVersion] = [:]
        var reachable = true
        var failure: ServerError?
        /// Reads tried (the revision read counts, whether the metadata changed or not).
        var reads = 0

        mutating func change(_ body: (inout Source) -> Void) {
            body(&self)
            revision += 1
        }
    }

    let clock = ManualClock(Timestamp(millisecondsSince1970: 1_800_000_000_000))
    let source = LockedValue(Source())
    let cache: MetadataCache
    let shop = Project(
        id: 1, name: "shop", writeKey: "fpk_shop", createdAt: Timestamp(millisecondsSince1970: 0))
    let other = Project(
        id: 2, name: "other", writeKey: "fpk_other", createdAt: Timestamp(millisecondsSince1970: 0))

    init() {
        let source = source
        cache = MetadataCache(intervalMilliseconds: 1_000, clock: clock) { known throws(ServerError) in
            try source.withLock { (source: inout Source) -> Result<MetadataSnapshot?, ServerError> in
                source.reads += 1
                if let failure = source.failure { return .failure(failure) }
                guard source.reachable else {
                    return .failure(ServerError(code: .unavailable, message: "down"))
                }
                if known == source.revision { return .success(nil) }
                return .success(
                    MetadataSnapshot(
                        revision: source.revision,
                        projectsByKey: Dictionary(
                            uniqueKeysWithValues: source.projects.map { ($0.writeKey, $0) }),
                        projectIds: Set(source.projects.map(\.id)), latestConfigs: source.configs))
            }.get()
        }
        self.source.withLock { $0.change { $0.projects = [shop] } }
    }

    var reads: Int { source.withLock { $0.reads } }

    @Test func aNewKeyAtOnceARevokedOneAfterTheInterval() throws {
        #expect(try cache.project(writeKey: "fpk_shop") == shop)
        #expect(try cache.project(writeKey: "fpk_shop") == shop)
        #expect(reads == 1)
        // A key the copy lacks is checked at once.
        source.withLock { $0.change { $0.projects.append(other) } }
        #expect(try cache.project(writeKey: "fpk_other") == other)
        #expect(try cache.project(writeKey: "fpk_none") == nil)
        #expect(reads == 3)
        // A revoked key answers until the interval has passed, then no more.
        source.withLock { $0.change { $0.projects = [other] } }
        #expect(try cache.project(writeKey: "fpk_shop") == shop)
        clock.advance(seconds: 2)
        #expect(try cache.project(writeKey: "fpk_shop") == nil)
        #expect(cache.phase == .fresh)
    }

    @Test func aPublishedConfigAfterTheInterval() throws {
        #expect(try cache.latestConfig(projectId: shop.id) == nil)
        let config = RemoteConfigVersion(version: 1, document: "{}", publishedAt: clock.now())
        source.withLock { $0.change { $0.configs[shop.id] = config } }
        #expect(try cache.latestConfig(projectId: shop.id) == nil)
        clock.advance(seconds: 2)
        #expect(try cache.latestConfig(projectId: shop.id) == config)
        // A project the copy does not know is checked at once.
        #expect(try cache.latestConfig(projectId: 99) == nil)
    }

    @Test func anUnreachableSourceLeavesWhatIsHeldAnsweringAndIsTriedOncePerInterval() throws {
        #expect(try cache.project(writeKey: "fpk_shop") == shop)
        source.withLock { $0.reachable = false }
        clock.advance(seconds: 2)
        #expect(try cache.project(writeKey: "fpk_shop") == shop)
        #expect(cache.phase == .unreachable)
        let unknown = #expect(throws: ServerError.self) { try cache.project(writeKey: "fpk_none") }
        #expect(unknown?.code == .unavailable)
        let triedBefore = reads
        for _ in 0..<5 { #expect(try cache.project(writeKey: "fpk_shop") == shop) }
        #expect(reads == triedBefore)
        source.withLock { $0.reachable = true }
        clock.advance(seconds: 2)
        #expect(try cache.project(writeKey: "fpk_none") == nil)
        #expect(cache.phase == .fresh)
    }

    @Test func anotherFailureIsThrownAndChangesNothing() throws {
        #expect(try cache.project(writeKey: "fpk_shop") == shop)
        source.withLock { $0.failure = ServerError(code: .storage, message: "broken") }
        clock.advance(seconds: 2)
        let failure = #expect(throws: ServerError.self) { try cache.project(writeKey: "fpk_shop") }
        #expect(failure?.code == .storage)
        #expect(cache.phase == .stale)
        source.withLock { $0.failure = nil }
        #expect(try cache.project(writeKey: "fpk_shop") == shop)
    }

    @Test func anEmptyCacheThatCannotReachItsSourceAnswersUnavailable() throws {
        let cache = MetadataCache(intervalMilliseconds: 1_000, clock: clock) { _ throws(ServerError) in
            throw ServerError(code: .unavailable, message: "down")
        }
        let error = #expect(throws: ServerError.self) { try cache.project(writeKey: "fpk_shop") }
        #expect(error?.code == .unavailable)
    }

    /// What `GET /metrics` shows: the age of the last refresh that reached the source, whether
    /// it reached it, and the revision held; reading it refreshes only when a lookup would.
    @Test func theMetricsReadingTellsTheAgeOfTheCopyAndWhetherTheSourceAnswers() throws {
        #expect(cache.reading() == MetadataCacheReading(reachable: true, secondsSinceRefresh: 0, revision: 2))
        #expect(reads == 1)
        clock.advance(seconds: 1)
        #expect(cache.reading().secondsSinceRefresh == 1)
        #expect(reads == 1)

        source.withLock { $0.reachable = false }
        clock.advance(seconds: 2)
        #expect(
            cache.reading() == MetadataCacheReading(reachable: false, secondsSinceRefresh: 3, revision: 2))
        #expect(reads == 2)
        // The copy still answers for what it holds.
        #expect(try cache.project(writeKey: "fpk_shop") == shop)
        clock.advance(seconds: 2)
        #expect(cache.reading().secondsSinceRefresh == 5)

        source.withLock { $0.reachable = true }
        source.withLock { $0.change { $0.projects = [shop, other] } }
        clock.advance(seconds: 2)
        #expect(cache.reading() == MetadataCacheReading(reachable: true, secondsSinceRefresh: 0, revision: 3))
    }
}
