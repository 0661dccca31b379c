import FootprintServer
import FootprintWire
import Testing

/// Connect sessions and snapshot retention in a real SQLite file, on explicit times.
@Suite struct ConnectSessionStoreTests {
    static let start = Timestamp(iso8601: "2026-11-03T12:00:00.000Z")!

    @Test func aSessionIsOpenUntilItsLifetimeEndsOrSomeoneEndsIt() throws {
        try withTemporaryStore("connect-lifecycle") { store, project in
            let sessions = ConnectSessions(stores: Stores(store))
            let started = try sessions.start(project: project, now: Self.start)
            #expect(started.token.hasPrefix("fpc_") && started.token.utf8.count == 36)
            #expect(started.session.expiresAt == Self.start.adding(milliseconds: 600_000))
            #expect(started.link == "footprint-shop://footprint/connect?token=\(started.token)")
            let found = try #require(try store.connectSession(tokenHash: SecretHash(of: started.token)))
            #expect(found.id == started.session.id && found.projectId == project.id)
            #expect(found.state(at: Self.start.adding(milliseconds: 599_999)) == .open)
            #expect(found.state(at: Self.start.adding(milliseconds: 600_000)) == .expired)
            #expect(try store.connectSession(tokenHash: SecretHash(of: started.token + "0")) == nil)

            let ended = try #require(
                try sessions.end(
                    id: started.session.id, project: project, now: Self.start.adding(milliseconds: 1000)))
            #expect(ended.state(at: Self.start.adding(milliseconds: 2000)) == .ended)
            #expect(ended.endedAt == Self.start.adding(milliseconds: 1000))
            // Ending again changes nothing; an unknown id or another project's is nil.
            let again = try sessions.end(
                id: started.session.id, project: project, now: Self.start.adding(milliseconds: 5000))
            #expect(again?.endedAt == Self.start.adding(milliseconds: 1000))
            let other = try store.createProject(named: "other")
            #expect(try sessions.end(id: started.session.id, project: other, now: Self.start) == nil)
            #expect(try sessions.end(id: 9999, project: project, now: Self.start) == nil)
        }
    }

    @Test func anExpiredSessionStaysExpiredWhenEnded() throws {
        try withTemporaryStore("connect-expired") { store, project in
            let sessions = ConnectSessions(stores: Stores(store))
            let started = try sessions.start(project: project, now: Self.start, lifetimeSeconds: 60)
            let later = Self.start.adding(milliseconds: 61_000)
            let session = try #require(try sessions.end(id: started.session.id, project: project, now: later))
            #expect(session.endedAt == nil && session.state(at: later) == .expired)
        }
    }

    @Test func aProjectHasAtMostItsOpenSessionsAndForgetsOldOnes() throws {
        try withTemporaryStore("connect-limits") { store, project in
            var limits = ConnectSession.Limits()
            limits.maximumOpenPerProject = 2
            limits.keptPerProject = 3
            let sessions = ConnectSessions(stores: Stores(store), limits: limits)
            let first = try sessions.start(project: project, now: Self.start)
            _ = try sessions.start(project: project, now: Self.start)
            #expect {
                _ = try sessions.start(project: project, now: Self.start)
            } throws: { ($0 as? ServerError)?.code == .tooManyConnectSessions }
            // Another project has its own allowance.
            let other = try store.createProject(named: "other")
            _ = try sessions.start(project: other, now: Self.start)
            // Ending one makes room; once past the kept count, the oldest closed ones are forgotten.
            try sessions.end(id: first.session.id, project: project, now: Self.start)
            let third = try sessions.start(project: project, now: Self.start)
            #expect(try store.connectSessions(projectId: project.id).count == 3)
            let later = Self.start.adding(milliseconds: 700_000)
            _ = try sessions.start(project: project, now: later)
            let kept = try store.connectSessions(projectId: project.id)
            #expect(kept.count == 3 && kept.first?.id ?? 0 > third.session.id)
            #expect(!kept.contains { $0.id == first.session.id })
            #expect(try store.connectSession(tokenHash: SecretHash(of: first.token)) == nil)
            #expect(try store.connectSessions(projectId: other.id).count == 1)
        }
    }

    @Test(arguments: [Int64(59), 3601, -1, .max])
    func aLifetimeOutsideItsRangeIsRefused(seconds: Int64) throws {
        try withTemporaryStore("connect-lifetime") { store, project throws in
            #expect {
                _ = try ConnectSessions(stores: Stores(store)).start(
                    project: project, now: Self.start, lifetimeSeconds: seconds)
            } throws: { ($0 as? ServerError)?.code == .connectSession }
            #expect(try store.connectSessions(projectId: project.id).isEmpty)
        }
    }

    @Test(arguments: ["http", "1app", "my app", "", String(repeating: "a", count: 65)])
    func aLinkNeedsAnAppsURLScheme(scheme: String) {
        #expect(throws: ServerError.self) {
            try ConnectSessions.link(token: "fpc_00", urlScheme: scheme, serverURL: nil)
        }
    }

    @Test func aLinkCarriesTheServerWhenGiven() throws {
        let link = try ConnectSessions.link(
            token: "fpc_ab", urlScheme: "MyShop", serverURL: "https://collect.example.com/")
        #expect(link == "myshop://footprint/connect?token=fpc_ab&server=https%3A%2F%2Fcollect.example.com%2F")
        #expect(throws: ServerError.self) {
            try ConnectSessions.link(token: "fpc_ab", urlScheme: "myshop", serverURL: "javascript:alert(1)")
        }
    }

    @Test func snapshotsPastTheSessionsOrTheProjectsBoundGoOldestFirst() throws {
        try withTemporaryStore("snapshot-retention") { store, project in
            let sessions = ConnectSessions(stores: Stores(store))
            let one = try sessions.start(project: project, now: Self.start).session
            let two = try sessions.start(project: project, now: Self.start).session
            var retention = SnapshotRetention()
            retention.perSession = 3
            retention.perProject = 5
            var ids: [Int64] = []
            for index in 0..<4 {
                let write = try store.storeSnapshot(
                    SnapshotSamples.record(
                        projectId: project.id, sessionId: one.id, page: "P\(index % 2)", at: Self.start),
                    retention: retention)
                #expect(write.created)
                ids.append(write.id)
            }
            // The session keeps its newest 3.
            let first = try store.snapshots(
                projectId: project.id, connectSessionId: one.id, after: 0, limit: 10)
            #expect(first.map(\.id) == Array(ids.suffix(3)))
            // The project keeps 5: past it, the oldest that is not the newest of its screen goes.
            for _ in 0..<3 {
                ids.append(
                    try store.storeSnapshot(
                        SnapshotSamples.record(
                            projectId: project.id, sessionId: two.id, page: "Q", at: Self.start),
                        retention: retention
                    ).id)
            }
            let screens = try store.screens(projectId: project.id)
            #expect(screens.map(\.page) == ["P0", "P1", "Q"])
            #expect(screens.map(\.snapshotCount).reduce(0, +) == 5)
            #expect(try store.screens(projectId: project.id).first { $0.page == "P0" }?.latest.id == ids[2])
            #expect(try store.snapshot(id: ids[1], projectId: project.id) == nil)
        }
    }

    @Test func snapshotsPastTheProjectsBytesGoAndTheirImagesWithThem() throws {
        try withTemporaryStore("snapshot-bytes") { store, project in
            let session = try ConnectSessions(stores: Stores(store)).start(project: project, now: Self.start)
                .session
            var retention = SnapshotRetention()
            retention.bytesPerProject = 25_000
            let first = try store.storeSnapshot(
                SnapshotSamples.record(
                    projectId: project.id, sessionId: session.id, imageBytes: 10_000, at: Self.start),
                retention: retention)
            #expect(try store.snapshotImage(id: first.id, projectId: project.id)?.data.count == 10_000)
            _ = try store.storeSnapshot(
                SnapshotSamples.record(
                    projectId: project.id, sessionId: session.id, imageBytes: 10_000, at: Self.start),
                retention: retention)
            let third = try store.storeSnapshot(
                SnapshotSamples.record(
                    projectId: project.id, sessionId: session.id, imageBytes: 10_000, at: Self.start),
                retention: retention)
            #expect(third.dropped == 1)
            #expect(try store.snapshot(id: first.id, projectId: project.id) == nil)
            #expect(try store.snapshotImage(id: first.id, projectId: project.id) == nil)
            let kept = try store.snapshots(
                projectId: project.id, connectSessionId: session.id, after: 0, limit: 10)
            #expect(kept.count == 2 && kept.allSatisfy { $0.image?.format == "png" })
        }
    }

    @Test func aResendOfTheSameSnapshotIdIsTheSameSnapshot() throws {
        try withTemporaryStore("snapshot-resend") { store, project in
            let session = try ConnectSessions(stores: Stores(store)).start(project: project, now: Self.start)
                .session
            let record = SnapshotSamples.record(projectId: project.id, sessionId: session.id, at: Self.start)
            let first = try store.storeSnapshot(record, retention: SnapshotRetention())
            var changed = record
            changed.page = "Elsewhere"
            let second = try store.storeSnapshot(changed, retention: SnapshotRetention())
            #expect(first.created && !second.created && second.id == first.id)
            #expect(try store.screens(projectId: project.id).map(\.page) == ["Detail"])
            // Another project may use the same device id.
            let other = try store.createProject(named: "other")
            var elsewhere = record
            elsewhere.projectId = other.id
            #expect(try store.storeSnapshot(elsewhere, retention: SnapshotRetention()).created)
        }
    }

    @Test func deletingAPersonDeletesTheSnapshotsOfTheirDevices() throws {
        try withTemporaryStore("snapshot-person") { store, project in
            let session = try ConnectSessions(stores: Stores(store)).start(project: project, now: Self.start)
                .session
            var theirs = SnapshotSamples.record(
                projectId: project.id, sessionId: session.id, imageBytes: 100, at: Self.start)
            theirs.anonymousId = "device-7"
            var others = SnapshotSamples.record(projectId: project.id, sessionId: session.id, at: Self.start)
            others.anonymousId = "device-8"
            let gone = try store.storeSnapshot(theirs, retention: SnapshotRetention())
            let kept = try store.storeSnapshot(others, retention: SnapshotRetention())
            _ = try store.deletePerson(
                id: "device-7", projectId: project.id,
                request: PersonDeletion.Request(requestedBy: "test", at: Self.start))
            #expect(try store.snapshot(id: gone.id, projectId: project.id) == nil)
            #expect(try store.snapshotImage(id: gone.id, projectId: project.id) == nil)
            #expect(try store.snapshot(id: kept.id, projectId: project.id) != nil)
        }
    }
}
