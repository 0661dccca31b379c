import FootprintWire

@testable import FootprintServer

extension ClickHouseSQL {
    /// Click groups of two days and kinds, one key a quote in it.
    static let someClickGroups = ClickGroups(
        days: [20_005, 20_006],
        keys: [(.elementClicks, "#buy:#UIButton#List"), (.similarElementClicks, "it's")])

    /// Every statement the store sends, labelled, for a project and a filter: the schema of one
    /// shard (with ``Tables/local``, only the local tables: a single node has no cluster), the
    /// writer's check of its copies, and every read. Tests run them on each ClickHouse release.
    /// A statement may send a table of rows along (``ClickHouseQuery/external``).
    func everyStatement(projectId: Int64, filter: ReportFilter) -> [(
        label: String, sql: String, external: [ClickHouseExternalTable]
    )] {
        var statements: [(label: String, sql: String)] = []
        let schema =
            tables.events == Tables.local.events ? schema.dropLast(distributedTables.count) : schema[...]
        for (index, statement) in schema.enumerated() {
            statements.append(("schema \(index + 1)", statement))
        }
        // A step on every page, one on one page only, and a source of two steps.
        let added = EventDefinition(
            id: "added", name: "Added", matchers: [EventMatcher(event: "Added", page: "Cart")])
        let steps: [FunnelStep] = [.page("Home"), .event("Product Viewed"), .defined(added), .page("Home")]
        let sources = FunnelSources(
            steps: steps,
            counts: [
                RollupPageCount(kind: .trackEvents, key: "Added", page: "Cart", day: 0, count: 1, text: nil)
            ])
        var onPage = filter
        onPage.page = onPage.page ?? "Home"
        statements += [
            ("redundant copies", redundantCopies(projectId: projectId).sql),
            ("event count", eventCount(projectId: projectId).sql),
            ("lost event count", lostEventCount(projectId: projectId).sql),
            ("event time span", eventTimeSpan(projectId: projectId).sql),
            ("identity links", identityLinks(projectId: projectId).sql),
            ("recent events", recentEvents(projectId: projectId, limit: 50, after: 1).sql),
            ("rollup counts", rollupCounts(projectId: projectId, filter: filter).sql),
            ("replicated tables", replicatedTables.sql),
            ("parts to fetch", partsToFetch(since: 1_700_000_000).sql),
            (
                "rollup counts of some kinds",
                rollupCounts(projectId: projectId, filter: filter, kinds: [.pageViews, .anyEvent]).sql
            ),
            (
                "rollup page counts",
                rollupPageCounts(projectId: projectId, filter: filter, kinds: Set(RollupKind.allCases)).sql
            ),
            (
                "person days",
                rollupPersonDays(
                    projectId: projectId, filter: filter, kind: .pageViews, keys: nil, pages: .each
                ).sql
            ),
            (
                "person days of keys",
                rollupPersonDays(
                    projectId: projectId, filter: filter, kind: .trackEvents, keys: ["a", "b"], pages: .merged
                ).sql
            ),
            (
                "funnel people",
                funnelPeople(
                    projectId: projectId, filter: filter,
                    sources: sources ?? FunnelSources(steps: [], counts: [])!,
                    stepCount: steps.count, windowMilliseconds: 86_400_000
                ).sql
            ),
            (
                "people counts",
                peopleCounts(projectId: projectId, filter: filter, kind: .trackEvents, keys: ["a", "b"]).sql
            ),
            ("active people", activePeople(projectId: projectId, filter: filter).sql),
            ("visitors", visitors(projectId: projectId, filter: filter).sql),
            ("retention", retention(projectId: projectId, filter: filter, returnEvent: nil, days: 7).sql),
            (
                "people of selections",
                peopleCounts(
                    projectId: projectId, filter: filter,
                    selections: [
                        [RollupReports.PeopleSelector(kind: .elementClicks, key: "#buy", page: "Home")],
                        [
                            RollupReports.PeopleSelector(kind: .pageViews, key: "Home", page: "Home"),
                            RollupReports.PeopleSelector(kind: .anyEvent, key: "", page: "Cart"),
                        ],
                    ]
                ).sql
            ),
            (
                "retention of an event",
                retention(projectId: projectId, filter: filter, returnEvent: "Product Viewed", days: 7).sql
            ),
            ("sessions", sessionFigures(projectId: projectId, filter: filter).sql),
            ("sessions on a page", sessionFigures(projectId: projectId, filter: onPage).sql),
            ("moves on a page", pageMoves(projectId: projectId, filter: onPage, page: onPage.page ?? "").sql),
            (
                "copied click groups",
                copiedClickGroupCount(
                    projectId: projectId, filter: filter, kinds: [.elementClicks, .similarElementClicks]
                ).sql
            ),
            (
                "element texts",
                elementTexts(
                    projectId: projectId, filter: filter, kinds: [.elementClicks, .similarElementClicks],
                    copied: false
                ).sql
            ),
            (
                "element texts with copied groups",
                elementTexts(
                    projectId: projectId, filter: filter, kinds: [.elementClicks, .similarElementClicks],
                    copied: true
                ).sql
            ),
            ("dwell", rollupDwell(projectId: projectId, filter: filter).sql),
            ("dwell of every session", rollupDwell(projectId: projectId, filter: filter, sessions: .all).sql),
            (
                "session rows in range",
                sessionRowsInRange(projectId: projectId, filter: filter, page: nil).sql
            ),
            (
                "session rows on a page in range",
                sessionRowsInRange(projectId: projectId, filter: filter, page: onPage.page).sql
            ),
            (
                "sessions on a page of every session",
                sessionFigures(projectId: projectId, filter: onPage, sessions: .all).sql
            ),
            ("dwell on a page", rollupDwell(projectId: projectId, filter: onPage).sql),
            ("moves", rollupMoves(projectId: projectId, filter: filter, from: nil).sql),
            ("moves from a page", rollupMoves(projectId: projectId, filter: filter, from: "Home").sql),
            (
                "events",
                analyticsEvents(projectId: projectId, filter: filter, properties: .omitted, limit: 1000).sql
            ),
            (
                "events with properties",
                analyticsEvents(projectId: projectId, filter: onPage, properties: .included, limit: 1000).sql
            ),
            (
                "delete person events",
                deletePersonEvents(projectId: projectId, person: "u1", anonymousIds: ["a1"])
            ),
            (
                "delete person links",
                deletePersonLinks(projectId: projectId, person: "u1", anonymousIds: ["a1"])[0]
            ),
            (
                "delete person links written since",
                deletePersonLinks(projectId: projectId, person: "u1", anonymousIds: ["a1"])[1]
            ),
            (
                "delete person copies",
                deletePersonCopies(projectId: projectId, person: "u1", anonymousIds: ["a1"])
            ),
            ("negative counts", negativeCounts(projectId: projectId, person: "u1", anonymousIds: ["a1"])),
            (
                "a person's click groups",
                personClickGroups(projectId: projectId, person: "u1", anonymousIds: ["a1"]).sql
            ),
            (
                "delete element texts",
                deleteElementTexts(projectId: projectId, groups: Self.someClickGroups)
            ),
            (
                "rebuild element texts",
                rebuildElementTexts(projectId: projectId, groups: Self.someClickGroups)
            ),
            ("events before", eventsBefore(projectId: projectId, time: 1_000).sql),
            ("delete events before", deleteEventsBefore(projectId: projectId, time: 1_000)),
            ("delete copies before", deleteCopiesBefore(projectId: projectId, time: 1_000)),
            ("pending mutations", pendingMutations.sql),
        ]
        for (index, statement) in deletePersonAggregates(
            projectId: projectId, person: "u1", anonymousIds: ["a1"]
        )
        .enumerated() {
            statements.append(("delete person aggregates \(index + 1)", statement))
        }
        for (index, statement) in deleteAggregatesBefore(projectId: projectId, day: 1).enumerated() {
            statements.append(("delete aggregates before \(index + 1)", statement))
        }
        if let rebuild = rebuildHorizonBlock(projectId: projectId, day: 20_005) {
            statements.append(("rebuild the horizon's block", rebuild))
        }
        statements += [
            ("newest sequence", newestSequence(projectId: projectId, devices: nil).sql),
            ("newest sequence of devices", newestSequence(projectId: projectId, devices: ["a1", "a2"]).sql),
            (
                "device clicks",
                deviceClicks(projectId: projectId, devices: ["a1"], after: 1, through: .max, limit: 200).sql
            ),
            ("newest counted day", newestCountedDay(projectId: projectId).sql),
            ("plan health reports", planHealthReports(projectId: projectId, since: 1, limit: 20).sql),
            ("messages by sequence", messages(projectId: projectId, sequences: [1, 2]).sql),
            ("node time", Self.nodeTime.sql),
            ("sorting keys", sortingKeys.sql),
            ("touches up to a cutoff", touches(projectId: projectId, upTo: 1_700_000_000).sql),
            ("settled rows", settledRows(projectId: projectId, round: "r1").sql),
            (
                "commit a round",
                commitRound(projectId: projectId, round: "r1", cutoff: 1_700_000_000, touches: 3, rows: 2)
            ),
            ("latest rounds", latestRounds(projectId: projectId).sql),
            ("round counts", roundCounts(projectId: projectId, round: "r1", cutoff: 1_700_000_000).sql),
            ("touches after", touchesAfter(projectId: projectId, cutoff: 1_700_000_000).sql),
            ("days touched", daysTouched(projectId: projectId, after: 1_700_000_000).sql),
            (
                "settled dwell",
                settledFigures(
                    projectId: projectId, round: "r1", kind: .dwell, filter: filter, skipped: [3, 4]
                ).sql
            ),
            (
                "settled moves from a page",
                settledFigures(
                    projectId: projectId, round: "r1", kind: .move, filter: onPage, skipped: [], from: "Home"
                ).sql
            ),
            (
                "settled session figures",
                Self.sessionFigures(of: [
                    settledLengths(projectId: projectId, round: "r1", filter: filter, skipped: [3]),
                    sessionLengths(projectId: projectId, filter: filter, sessions: .inRange),
                ]).sql
            ),
            (
                "the sessions touched since",
                touchedSessionHashes(projectId: projectId, after: 1_700_000_000, limit: 100_000).sql
            ),
            ("a round's window", windowStart(projectId: projectId, cutoff: 1_700_000_000, days: 2).sql),
            (
                "copy figures before a window",
                copyFigures(projectId: projectId, from: "r1", to: "r2", skipped: [3], window: 20_000)
            ),
            ("projects touched", projectsTouched.sql),
            ("touch devices", touchDevices(projectId: projectId, devices: ["a1", "a2"])),
            ("person sessions", personSessions(projectId: projectId, person: "u1", anonymousIds: ["a1"]).sql),
            ("touch sessions", touch(projectId: projectId, sessions: [("s:1", 20_000), ("s:2", 20_001)])),
            ("rounds", rounds(projectId: projectId).sql),
            ("first person block", firstPersonBlock(projectId: projectId).sql),
            ("settled people check", settledPeopleCheck(projectId: projectId, round: "r1").sql),
            ("delete totals", deleteTotals(projectId: projectId)),
            (
                "delete a person's settled members",
                deletePersonSettled(projectId: projectId, person: "u1", anonymousIds: ["a1", "a2"])
            ),
            ("mutations since", mutationsSince(1_700_000_000).sql),
            ("stale touched hours", staleTouchedHours.sql),
            ("drop a touched hour", dropTouchedHour(400_000, of: "touched_rows_local") ?? ""),
            ("drop a touched links hour", dropTouchedHour(400_000, of: "touched_links_local") ?? ""),
        ]
        for (index, statement) in settlePeople(projectId: projectId, round: "r1", firstBlock: 300)
            .enumerated()
        {
            statements.append(("settle people \(index + 1)", statement))
        }
        for (index, statement) in settlePeople(
            projectId: projectId, round: "r2", firstBlock: 300, before: ("r1", 1_700_000_000, 1_700_000_600)
        ).enumerated() {
            statements.append(("settle people after a round \(index + 1)", statement))
        }
        for (index, statement) in settleFigures(projectId: projectId, round: "r1").enumerated() {
            statements.append(("settle figures \(index + 1)", statement))
        }
        for (index, statement) in settleWindow(projectId: projectId, round: "r1", from: 20_000).enumerated() {
            statements.append(("settle a window \(index + 1)", statement))
        }
        for (index, statement) in deleteRounds(projectId: projectId, keeping: ["r1"]).enumerated() {
            statements.append(("delete rounds \(index + 1)", statement))
        }
        var settledReads: [(label: String, sql: String, external: [ClickHouseExternalTable])] = []
        // A settled read names no page, app version or OS (``settledPeopleRound``). Each read of
        // the rows written since either looks up their devices' links or is sent them.
        let sentLinks: [[SinceLink]?] = [nil, [SinceLink(device: "a1", linked: "u1")]]
        for cutoff: Int64 in filter.namesPageVersionOrOS ? [] : [0, 1_800_000_000] {
            let lookup = linksSince(projectId: projectId, cutoff: cutoff, limit: 10)
            settledReads.append(("links since, cutoff \(cutoff)", lookup.sql, lookup.external))
            for links in sentLinks {
                let of = "cutoff \(cutoff)\(links == nil ? "" : ", links sent")"
                for returnEvent in [nil, "buy"] {
                    let retention = settledRetention(
                        projectId: projectId, filter: filter, round: "r1", cutoff: cutoff,
                        returnEvent: returnEvent, days: 7, affected: ["a1", "u1"], links: links)
                    for (name, read) in [("every shard", retention.everyShard), ("once", retention.once)] {
                        guard let read else { continue }
                        settledReads.append(
                            (
                                "settled retention of \(returnEvent ?? "any event"), \(name), \(of)",
                                read.sql, read.external
                            ))
                    }
                }
                let affected = affectedMemberList(
                    projectId: projectId, filter: filter, round: "r1", cutoff: cutoff, links: links)
                settledReads.append(("affected members, \(of)", affected.sql, affected.external))
                for (index, changed) in changedPeople(
                    projectId: projectId, filter: filter, round: "r1", cutoff: cutoff, links: links
                ).enumerated() {
                    settledReads.append(("changed people \(index + 1), \(of)", changed.sql, changed.external))
                }
                for totals in [false, true] {
                    let active = settledPeople(
                        projectId: projectId, filter: filter, round: "r1", cutoff: cutoff,
                        items: [.init(kind: Int(RollupKind.anyEvent.rawValue), keys: nil)],
                        spans: SettledSpan.range(2) + SettledSpan.windows(2, window: 7),
                        affected: ["a1", "u1"], totals: totals, links: links)
                    let visitors = settledPeople(
                        projectId: projectId, filter: filter, round: "r1", cutoff: cutoff,
                        items: [
                            .init(kind: Int(RollupKind.pageViews.rawValue), keys: nil),
                            .init(kind: Self.anyPageKind, keys: nil),
                            .init(
                                kind: Int(RollupKind.trackEvents.rawValue), keys: ["$element_click", "buy"]),
                        ],
                        spans: [SettledSpan(first: 0, last: 0)], affected: [], totals: totals, links: links)
                    for (index, read) in (active + visitors).enumerated() {
                        settledReads.append(
                            ("settled people \(index + 1), \(of), totals \(totals)", read.sql, read.external))
                    }
                }
            }
            let devices = changedDevices(projectId: projectId, round: "r1", changed: ["u1", "a1"])
            settledReads.append(("changed devices, cutoff \(cutoff)", devices.sql, devices.external))
        }
        // A read of one page, app version or OS takes the round's kinds kept by it.
        if let label = SettledLabel(filter) {
            let (views, any) = (Int(RollupKind.pageViews.rawValue), Int(RollupKind.anyEvent.rawValue))
            let pages: [SettledPeopleItems] = [
                .init(kind: views, keys: nil, label: label),
                .init(kind: Self.anyPageKind, keys: nil, label: label),
            ]
            for cutoff: Int64 in [0, 1_800_000_000] {
                for (index, changed) in changedPeople(
                    projectId: projectId, filter: filter, round: "r1", cutoff: cutoff
                ).enumerated() {
                    settledReads.append(
                        ("changed people \(index + 1) of one label, cutoff \(cutoff)", changed.sql, []))
                }
                for totals in [false, true] {
                    let reads = settledPeople(
                        projectId: projectId, filter: filter, round: "r1", cutoff: cutoff,
                        items: [.init(kind: any, keys: nil, label: label)] + pages,
                        spans: SettledSpan.range(2), affected: ["a1", "u1"], totals: totals)
                    for (index, read) in reads.enumerated() {
                        settledReads.append(
                            (
                                "settled people of one label \(index + 1), cutoff \(cutoff), totals \(totals)",
                                read.sql, read.external
                            ))
                    }
                }
            }
        }
        let messages = [Message(device: "a1", messageId: "m1"), Message(device: "", messageId: "m1")]
        let copied = copiedMessages(projectId: projectId, of: messages)
        let copies = storedCopies(projectId: projectId, of: messages)
        // The reads that take back the sessions touched since, sent with their hashes.
        let touched = Self.touchedTable([1, 0xFFFF_FFFF_FFFF_FFFF])
        let takenBack: [(label: String, sql: String)] = [
            (
                "dwell of the sessions touched since",
                rollupDwell(projectId: projectId, filter: filter, sessions: .touched).sql
            ),
            (
                "moves of the sessions touched since",
                rollupMoves(projectId: projectId, filter: filter, from: nil, sessions: .touched).sql
            ),
            (
                "settled dwell, the sessions touched since taken back",
                settledFigures(
                    projectId: projectId, round: "r1", kind: .dwell, filter: filter, skipped: [3],
                    takenBack: [1]
                ).sql
            ),
            (
                "settled moves from a page, the sessions touched since taken back",
                settledFigures(
                    projectId: projectId, round: "r1", kind: .move, filter: filter, skipped: [], from: "Home",
                    takenBack: [1]
                ).sql
            ),
            (
                "settled session figures, the sessions touched since taken back",
                Self.sessionFigures(of: [
                    settledLengths(
                        projectId: projectId, round: "r1", filter: filter, skipped: [3], takenBack: true),
                    sessionLengths(projectId: projectId, filter: filter, sessions: .touched),
                ]).sql
            ),
        ]
        settledReads += takenBack.map { ($0.label, $0.sql, [touched]) }
        let days = daysOfTouchedSessions(projectId: projectId, hashes: [1, 2])
        settledReads.append(("days of the sessions touched since", days.sql, days.external))
        return statements.map { ($0.label, $0.sql, []) } + settledReads + [
            ("copied messages", copied.sql, copied.external), ("stored copies", copies.sql, copies.external),
            ("insert marks", insertMarks(projectId: projectId, among: [16, 32]).sql, []),
            ("running queries", runningQueries(among: ["footprint-insert-16-1"]).sql, []),
            (
                "repair daily counts", repairDailyCounts(projectId: projectId),
                [
                    Self.repairedCopies([
                        ClickHouseEventStore.StoredCopy(device: "a1", messageId: "m1", sequence: 2)
                    ])
                ]
            ),
        ]
    }
}
