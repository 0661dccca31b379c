/// The SQLite store's schema, as versioned migrations (`PRAGMA user_version` counts them).
enum SQLiteSchema {
    /// Migration `i` brings the schema to version `i + 1`. Append; never edit a shipped one.
    ///
    /// Events carry one index, the dedupe key: the reports group whole projects, which a scan
    /// does faster than an index that does not cover them, and each index slows every insert.
    static let migrations: [String] = [
        """
        CREATE TABLE projects(
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            created_at INTEGER NOT NULL
        );
        CREATE TABLE write_keys(
            key TEXT PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects(id),
            created_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE events(
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL,
            message_id TEXT NOT NULL,
            type TEXT NOT NULL,
            name TEXT,
            time INTEGER NOT NULL,
            client_timestamp INTEGER NOT NULL,
            sent_at INTEGER,
            received_at INTEGER NOT NULL,
            anonymous_id TEXT,
            user_id TEXT,
            session_id TEXT,
            page TEXT,
            element_path TEXT,
            app_version TEXT,
            os TEXT,
            payload TEXT NOT NULL
        );
        CREATE UNIQUE INDEX events_by_message ON events(project_id, message_id);
        CREATE TABLE identities(
            project_id INTEGER NOT NULL,
            anonymous_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            first_seen INTEGER NOT NULL,
            PRIMARY KEY(project_id, anonymous_id, user_id)
        ) WITHOUT ROWID;
        CREATE TABLE lost_events(
            project_id INTEGER NOT NULL,
            batch_key TEXT NOT NULL,
            count INTEGER NOT NULL,
            received_at INTEGER NOT NULL,
            PRIMARY KEY(project_id, batch_key)
        ) WITHOUT ROWID;
        CREATE TABLE config_versions(
            project_id INTEGER NOT NULL REFERENCES projects(id),
            version INTEGER NOT NULL,
            document TEXT NOT NULL,
            published_at INTEGER NOT NULL,
            PRIMARY KEY(project_id, version)
        ) WITHOUT ROWID;
        """,
        // Reports over a time range (the properties they read become columns), event
        // definitions, and the live-events page.
        """
        ALTER TABLE events ADD COLUMN similar_path TEXT;
        ALTER TABLE events ADD COLUMN element_text TEXT;
        ALTER TABLE events ADD COLUMN item_id TEXT;
        ALTER TABLE events ADD COLUMN duration_ms INTEGER;
        UPDATE events SET
            similar_path = json_extract(payload, '$.properties."$element_similar_path"'),
            element_text = json_extract(payload, '$.properties."$element_text"'),
            item_id = json_extract(payload, '$.properties."$item_id"'),
            duration_ms = CAST(json_extract(payload, '$.properties.duration_ms') AS INTEGER)
        WHERE type = 'track';
        CREATE INDEX events_by_time ON events(project_id, time);
        CREATE TABLE rollup_counts(
            project_id INTEGER NOT NULL,
            day INTEGER NOT NULL,
            kind INTEGER NOT NULL,
            key TEXT NOT NULL,
            page TEXT NOT NULL,
            app_version TEXT NOT NULL,
            os TEXT NOT NULL,
            count INTEGER NOT NULL,
            detail TEXT,
            PRIMARY KEY(project_id, day, kind, key, page, app_version, os)
        ) WITHOUT ROWID;
        CREATE TABLE rollup_people(
            project_id INTEGER NOT NULL,
            day INTEGER NOT NULL,
            anonymous_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            page TEXT NOT NULL,
            app_version TEXT NOT NULL,
            os TEXT NOT NULL,
            viewed INTEGER NOT NULL,
            PRIMARY KEY(project_id, day, anonymous_id, user_id, page, app_version, os)
        ) WITHOUT ROWID;
        CREATE TABLE rollup_active(
            project_id INTEGER NOT NULL,
            day INTEGER NOT NULL,
            anonymous_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            viewed INTEGER NOT NULL,
            PRIMARY KEY(project_id, day, anonymous_id, user_id)
        ) WITHOUT ROWID;
        INSERT INTO rollup_active(project_id, day, anonymous_id, user_id, viewed)
        SELECT project_id, time / 86400000 - (time < 0 AND time % 86400000 != 0), coalesce(anonymous_id, ''),
            coalesce(user_id, ''), max(type IN ('screen', 'page'))
        FROM events GROUP BY 1, 2, 3, 4;
        INSERT INTO rollup_counts(project_id, day, kind, key, page, app_version, os, count, detail)
        SELECT project_id, time / 86400000 - (time < 0 AND time % 86400000 != 0), 0, name, coalesce(page, ''),
            coalesce(app_version, ''), coalesce(os, ''), count(*), NULL
        FROM events WHERE type IN ('screen', 'page') AND name IS NOT NULL GROUP BY 1, 2, 4, 5, 6, 7;
        INSERT INTO rollup_counts(project_id, day, kind, key, page, app_version, os, count, detail)
        SELECT project_id, time / 86400000 - (time < 0 AND time % 86400000 != 0), 1, name, coalesce(page, ''),
            coalesce(app_version, ''), coalesce(os, ''), count(*), NULL
        FROM events WHERE type = 'track' AND name IS NOT NULL GROUP BY 1, 2, 4, 5, 6, 7;
        INSERT INTO rollup_counts(project_id, day, kind, key, page, app_version, os, count, detail)
        SELECT project_id, time / 86400000 - (time < 0 AND time % 86400000 != 0), 2, element_path,
            coalesce(page, ''), coalesce(app_version, ''), coalesce(os, ''), count(*), max(element_text)
        FROM events WHERE type = 'track' AND name = '$element_click' AND element_path IS NOT NULL
        GROUP BY 1, 2, 4, 5, 6, 7;
        INSERT INTO rollup_counts(project_id, day, kind, key, page, app_version, os, count, detail)
        SELECT project_id, time / 86400000 - (time < 0 AND time % 86400000 != 0), 3,
            coalesce(similar_path, element_path), coalesce(page, ''), coalesce(app_version, ''), coalesce(os, ''),
            count(*), max(element_text)
        FROM events WHERE type = 'track' AND name = '$element_click' AND element_path IS NOT NULL
        GROUP BY 1, 2, 4, 5, 6, 7;
        INSERT INTO rollup_counts(project_id, day, kind, key, page, app_version, os, count, detail)
        SELECT project_id, time / 86400000 - (time < 0 AND time % 86400000 != 0), 4, type, coalesce(page, ''),
            coalesce(app_version, ''), coalesce(os, ''), count(*), NULL
        FROM events WHERE type NOT IN ('screen', 'page', 'track') GROUP BY 1, 2, 4, 5, 6, 7;
        INSERT INTO rollup_people(project_id, day, anonymous_id, user_id, page, app_version, os, viewed)
        SELECT project_id, time / 86400000 - (time < 0 AND time % 86400000 != 0), coalesce(anonymous_id, ''),
            coalesce(user_id, ''), coalesce(page, ''), coalesce(app_version, ''), coalesce(os, ''),
            max(type IN ('screen', 'page'))
        FROM events GROUP BY 1, 2, 3, 4, 5, 6, 7;
        CREATE TABLE event_definitions(
            project_id INTEGER NOT NULL REFERENCES projects(id),
            id TEXT NOT NULL,
            document TEXT NOT NULL,
            updated_at INTEGER NOT NULL,
            PRIMARY KEY(project_id, id)
        ) WITHOUT ROWID;
        """,
        // Rollups for every report: distinct people as day bitmasks, stored sessions with their
        // page timelines, dwell histograms and page moves; the index funnels read. The rollups
        // are rebuilt from the events in Swift after this migration (`store_state`), by the same
        // code that keeps them on ingest.
        """
        ALTER TABLE events ADD COLUMN plan_event TEXT;
        DROP TABLE rollup_people;
        DROP TABLE rollup_active;
        DELETE FROM rollup_counts;
        CREATE TABLE rollup_person_days(
            project_id INTEGER NOT NULL,
            kind INTEGER NOT NULL,
            key TEXT NOT NULL,
            block INTEGER NOT NULL,
            anonymous_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            page TEXT NOT NULL,
            app_version TEXT NOT NULL,
            os TEXT NOT NULL,
            days INTEGER NOT NULL,
            PRIMARY KEY(project_id, kind, key, block, anonymous_id, user_id, page, app_version, os)
        ) WITHOUT ROWID;
        CREATE TABLE rollup_person_times(
            project_id INTEGER NOT NULL,
            kind INTEGER NOT NULL,
            key TEXT NOT NULL,
            block INTEGER NOT NULL,
            anonymous_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            page TEXT NOT NULL,
            app_version TEXT NOT NULL,
            os TEXT NOT NULL,
            times BLOB NOT NULL,
            PRIMARY KEY(project_id, kind, key, block, anonymous_id, user_id, page, app_version, os)
        ) WITHOUT ROWID;
        CREATE TABLE sessions(
            project_id INTEGER NOT NULL,
            session_key TEXT NOT NULL,
            day INTEGER NOT NULL,
            start_time INTEGER NOT NULL,
            end_time INTEGER NOT NULL,
            page_views INTEGER NOT NULL,
            app_version TEXT NOT NULL,
            os TEXT NOT NULL,
            marks TEXT NOT NULL,
            PRIMARY KEY(project_id, session_key)
        ) WITHOUT ROWID;
        CREATE INDEX sessions_by_day ON sessions(project_id, day, app_version, os, start_time, end_time, page_views);
        CREATE TABLE session_pages(
            project_id INTEGER NOT NULL,
            session_key TEXT NOT NULL,
            page TEXT NOT NULL,
            day INTEGER NOT NULL,
            start_time INTEGER NOT NULL,
            end_time INTEGER NOT NULL,
            page_views INTEGER NOT NULL,
            app_version TEXT NOT NULL,
            os TEXT NOT NULL,
            PRIMARY KEY(project_id, session_key, page)
        ) WITHOUT ROWID;
        CREATE INDEX session_pages_by_page
            ON session_pages(project_id, page, day, app_version, os, start_time, end_time, page_views);
        CREATE TABLE project_events(project_id INTEGER PRIMARY KEY, stored INTEGER NOT NULL);
        CREATE TABLE rollup_dwell(
            project_id INTEGER NOT NULL,
            day INTEGER NOT NULL,
            page TEXT NOT NULL,
            app_version TEXT NOT NULL,
            os TEXT NOT NULL,
            bucket INTEGER NOT NULL,
            count INTEGER NOT NULL,
            total INTEGER NOT NULL,
            PRIMARY KEY(project_id, day, page, app_version, os, bucket)
        ) WITHOUT ROWID;
        CREATE TABLE rollup_moves(
            project_id INTEGER NOT NULL,
            day INTEGER NOT NULL,
            from_page TEXT NOT NULL,
            to_page TEXT NOT NULL,
            app_version TEXT NOT NULL,
            os TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY(project_id, day, from_page, to_page, app_version, os)
        ) WITHOUT ROWID;
        UPDATE events SET plan_event = json_extract(payload, '$.properties."$event_name"')
        WHERE type = 'track' AND name = '$element_click'
            AND typeof(json_extract(payload, '$.properties."$event_name"')) = 'text';
        CREATE TABLE store_state(key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
        INSERT INTO store_state(key, value) VALUES ('rollups_rebuilt_through', 0);
        """,
        // People: the salt of the deleted ids' digests, the ids refused after a deletion (digests
        // only) and the deletion log (who, when, how much; the person only as a digest); each
        // project's retention (its own days, the first day still kept).
        """
        CREATE TABLE people_salt(id INTEGER PRIMARY KEY CHECK (id = 1), salt BLOB NOT NULL);
        INSERT INTO people_salt(id, salt) VALUES (1, randomblob(32));
        CREATE TABLE deleted_ids(
            project_id INTEGER NOT NULL,
            digest BLOB NOT NULL,
            refused_until INTEGER NOT NULL,
            PRIMARY KEY(project_id, digest)
        ) WITHOUT ROWID;
        CREATE TABLE person_deletions(
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL,
            person_digest BLOB NOT NULL,
            requested_by TEXT NOT NULL,
            deleted_at INTEGER NOT NULL,
            events INTEGER NOT NULL,
            identity_links INTEGER NOT NULL
        );
        CREATE TABLE project_retention(
            project_id INTEGER PRIMARY KEY,
            days INTEGER,
            horizon_day INTEGER
        );
        """,
        // Connect sessions (each token kept only as its SHA-256; `first_event`: the newest event id
        // when it started, where its device's live clicks begin) and the screen snapshots their
        // devices upload, the images apart so that listing snapshots never reads them (a snapshot's
        // id is never reused, so its image can be cached).
        """
        CREATE TABLE connect_sessions(
            id INTEGER PRIMARY KEY,
            hash BLOB NOT NULL UNIQUE,
            project_id INTEGER NOT NULL REFERENCES projects(id),
            hint TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            ended_at INTEGER,
            first_event INTEGER NOT NULL
        );
        CREATE INDEX connect_sessions_by_project ON connect_sessions(project_id, id);
        CREATE TABLE snapshots(
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            project_id INTEGER NOT NULL REFERENCES projects(id),
            connect_session INTEGER NOT NULL,
            device_snapshot_id TEXT NOT NULL,
            anonymous_id TEXT NOT NULL,
            user_id TEXT,
            page TEXT NOT NULL,
            app_version TEXT NOT NULL,
            taken_at INTEGER NOT NULL,
            received_at INTEGER NOT NULL,
            element_count INTEGER NOT NULL,
            image_format TEXT,
            image_width INTEGER,
            image_height INTEGER,
            bytes INTEGER NOT NULL,
            document TEXT NOT NULL
        );
        CREATE UNIQUE INDEX snapshots_by_device_id ON snapshots(project_id, device_snapshot_id);
        CREATE INDEX snapshots_by_screen ON snapshots(project_id, page, app_version);
        CREATE INDEX snapshots_by_session ON snapshots(connect_session);
        CREATE TABLE snapshot_images(snapshot INTEGER PRIMARY KEY, data BLOB NOT NULL);
        """,
        // Project read tokens and dashboard sessions, each kept only as the SHA-256 of its secret.
        """
        CREATE TABLE read_tokens(
            id INTEGER PRIMARY KEY,
            hash BLOB NOT NULL UNIQUE,
            project_id INTEGER NOT NULL REFERENCES projects(id),
            hint TEXT NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE TABLE dashboard_sessions(
            hash BLOB PRIMARY KEY,
            expires_at INTEGER NOT NULL,
            created_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX dashboard_sessions_by_expiry ON dashboard_sessions(expires_at);
        """,
        // People as numbers (`PersonSetWriter`): a dense number per project for each id (kept
        // as its salted digest), the identity links as merges of numbers, and per day, kind and
        // key the set of people (`PersonSet`). Filled from `rollup_person_days` and `identities`
        // on the first writable open (`personSetsKey`).
        """
        CREATE TABLE person_numbers(
            project_id INTEGER NOT NULL,
            digest BLOB NOT NULL,
            number INTEGER NOT NULL,
            PRIMARY KEY(project_id, digest)
        ) WITHOUT ROWID;
        CREATE UNIQUE INDEX person_numbers_by_number ON person_numbers(project_id, number);
        CREATE TABLE person_merges(
            project_id INTEGER NOT NULL,
            anonymous INTEGER NOT NULL,
            person INTEGER NOT NULL,
            PRIMARY KEY(project_id, anonymous)
        ) WITHOUT ROWID;
        CREATE TABLE person_sets(
            project_id INTEGER NOT NULL,
            kind INTEGER NOT NULL,
            key TEXT NOT NULL,
            day INTEGER NOT NULL,
            role INTEGER NOT NULL,
            chunk INTEGER NOT NULL,
            members BLOB NOT NULL,
            PRIMARY KEY(project_id, kind, key, day, role, chunk)
        ) WITHOUT ROWID;
        INSERT INTO store_state(key, value) VALUES ('person_sets_pending', 1);
        """,
        // The metadata revision a server's cache of the write keys polls (``MetadataCache``):
        // triggers bump it with every change to projects and write keys, whoever makes it (a
        // server, a command on the file, an operator's SQL), as in PostgreSQL.
        """
        CREATE TABLE metadata_revision(id INTEGER PRIMARY KEY CHECK (id = 1), revision INTEGER NOT NULL);
        INSERT INTO metadata_revision(id, revision) VALUES (1, 1);
        """
            + ["projects", "write_keys"].flatMap { table in
                ["INSERT", "UPDATE", "DELETE"].map { change in
                    """
                    CREATE TRIGGER \(table)_\(change.lowercased())_bumps_metadata_revision AFTER \(change) ON \(table)
                    BEGIN UPDATE metadata_revision SET revision = revision + 1 WHERE id = 1; END;

                    """
                }
            }.joined(),
        // Event payloads compressed (``StoredPayload``): from here on a row's `payload` is
        // either TEXT (the JSON, as every row stored before) or a BLOB of the compressed JSON,
        // which a build of an earlier version would misread; the version bump keeps those out.
        // The rows stored before are compressed on the first writable open (`payloadsKey`).
        """
        INSERT INTO store_state(key, value) VALUES ('\(payloadsKey)', 0);
        """,
        // Funnel times per day, many people to a row (``PersonTimes``): the events of one kind,
        // key, day, page, app version and OS as (person number, time) pairs, in chunks, instead
        // of one row per person and 8-day block keyed by the ids. Filled from the stored events
        // on the first writable open (`timesKey`), unless a rebuild of every rollup is due,
        // which fills it too.
        """
        DROP TABLE rollup_person_times;
        CREATE TABLE rollup_times(
            project_id INTEGER NOT NULL,
            kind INTEGER NOT NULL,
            key TEXT NOT NULL,
            day INTEGER NOT NULL,
            page TEXT NOT NULL,
            app_version TEXT NOT NULL,
            os TEXT NOT NULL,
            chunk INTEGER NOT NULL,
            entries BLOB NOT NULL,
            PRIMARY KEY(project_id, kind, key, day, page, app_version, os, chunk)
        ) WITHOUT ROWID;
        INSERT INTO store_state(key, value)
            SELECT '\(timesKey)', 0 WHERE NOT EXISTS (SELECT 1 FROM store_state WHERE key = '\(rebuildKey)');
        """,
        // The daily counts without their page, app version and OS, for the reports that filter
        // on none of them (most): a row per day, kind and key instead of one per page, version
        // and OS as well. Summed from `rollup_counts` (empty while a rebuild is due, which
        // writes both).
        """
        CREATE TABLE rollup_totals(
            project_id INTEGER NOT NULL,
            day INTEGER NOT NULL,
            kind INTEGER NOT NULL,
            key TEXT NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY(project_id, day, kind, key)
        ) WITHOUT ROWID;
        INSERT INTO rollup_totals(project_id, day, kind, key, count)
            SELECT project_id, day, kind, key, CAST(min(max(total(count), 0), 9223372036854775807) AS INTEGER)
            FROM rollup_counts GROUP BY project_id, day, kind, key;
        """,
        // The people per day, page, app version and OS as sets of person numbers
        // (`person_label_sets`, ``PersonSet``), instead of one row per person, 64-day block, page,
        // app version and OS keyed by the ids (`rollup_person_days`): a write touches the rows of
        // its own days only, not a page of every person it saw, and no id is stored. Both set
        // tables are filled again from the stored events on the first writable open
        // (`labelSetsKey`), unless a rebuild of every rollup that has not begun will fill them.
        """
        DROP TABLE rollup_person_days;
        CREATE TABLE person_label_sets(
            project_id INTEGER NOT NULL,
            kind INTEGER NOT NULL,
            key TEXT NOT NULL,
            day INTEGER NOT NULL,
            page TEXT NOT NULL,
            app_version TEXT NOT NULL,
            os TEXT NOT NULL,
            role INTEGER NOT NULL,
            chunk INTEGER NOT NULL,
            members BLOB NOT NULL,
            PRIMARY KEY(project_id, kind, key, day, page, app_version, os, role, chunk)
        ) WITHOUT ROWID;
        DELETE FROM person_sets;
        INSERT INTO store_state(key, value)
            SELECT '\(labelSetsKey)', 0
            WHERE NOT EXISTS (SELECT 1 FROM store_state WHERE key = '\(rebuildKey)' AND value = 0);
        """,
        // Session marks as bytes (``SessionTimeline/storedMarks``, a BLOB in `sessions.marks`)
        // from here on; a row written before keeps its JSON text, still read, until its session
        // is written again. Nothing to change in the file: the version bump keeps an earlier
        // build, which would take the bytes for damaged JSON and start those sessions again, out.
        """
        UPDATE store_state SET value = value WHERE 0;
        """,
        // Narrower events rows from here on; rows written before keep their form, still read:
        // - payloads in format 2 (``StoredPayload``: the message without the values its row's
        //   columns hold);
        // - the client's time and the time received as offsets from the event's time
        //   (`client_offset`, `received_offset`; `client_timestamp` and `received_at` hold 0,
        //   which takes no bytes; see ``clientTimestamp``);
        // - `similar_path` NULL where it equals `element_path` (see ``similarPath``).
        // And a session's pages keyed by the session's number (the row id of `sessions`, found by
        // its key through `sessions_by_key`) instead of its key again, in the table and in the
        // index by page. The version bump keeps an earlier build, which reads none of them, out.
        """
        ALTER TABLE events ADD COLUMN client_offset INTEGER;
        ALTER TABLE events ADD COLUMN received_offset INTEGER;
        CREATE TABLE numbered_sessions(
            number INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL,
            session_key TEXT NOT NULL,
            day INTEGER NOT NULL,
            start_time INTEGER NOT NULL,
            end_time INTEGER NOT NULL,
            page_views INTEGER NOT NULL,
            app_version TEXT NOT NULL,
            os TEXT NOT NULL,
            marks TEXT NOT NULL
        );
        INSERT INTO numbered_sessions(project_id, session_key, day, start_time, end_time, page_views, app_version,
            os, marks)
            SELECT project_id, session_key, day, start_time, end_time, page_views, app_version, os, marks
            FROM sessions ORDER BY project_id, day, start_time;
        CREATE UNIQUE INDEX sessions_by_key ON numbered_sessions(project_id, session_key);
        CREATE TABLE numbered_session_pages(
            project_id INTEGER NOT NULL,
            session INTEGER NOT NULL,
            page TEXT NOT NULL,
            day INTEGER NOT NULL,
            start_time INTEGER NOT NULL,
            end_time INTEGER NOT NULL,
            page_views INTEGER NOT NULL,
            app_version TEXT NOT NULL,
            os TEXT NOT NULL,
            PRIMARY KEY(project_id, session, page)
        ) WITHOUT ROWID;
        INSERT INTO numbered_session_pages(project_id, session, page, day, start_time, end_time, page_views,
            app_version, os)
            SELECT p.project_id, s.number, p.page, p.day, p.start_time, p.end_time, p.page_views, p.app_version,
                p.os
            FROM session_pages p JOIN numbered_sessions s
                ON s.project_id = p.project_id AND s.session_key = p.session_key;
        DROP TABLE session_pages;
        DROP TABLE sessions;
        ALTER TABLE numbered_sessions RENAME TO sessions;
        ALTER TABLE numbered_session_pages RENAME TO session_pages;
        CREATE INDEX sessions_by_day ON sessions(project_id, day, app_version, os, start_time, end_time, page_views);
        CREATE INDEX session_pages_by_page
            ON session_pages(project_id, page, day, app_version, os, start_time, end_time, page_views);
        """,
    ]

    /// The `store_state` key whose value is the last event id whose text payload has been
    /// compressed (``GroupCommitWriter/compressStoredPayloads(chunk:)``); present only while
    /// that is unfinished.
    static let payloadsKey = "payloads_compressed_through"

    /// The `store_state` key whose value is the last event id the rollup rebuild has counted;
    /// present only while a rebuild is unfinished.
    static let rebuildKey = "rollups_rebuilt_through"

    /// The `store_state` key whose value is the last event id whose times `rollup_times` holds;
    /// present only while filling it from the stored events is unfinished.
    static let timesKey = "rollup_times_filled_through"

    /// The `store_state` key present while `person_merges` is to be built again from
    /// `identities` (after the migration that adds it, or a rebuild of the rollups); a read-only
    /// open is refused meanwhile.
    static let personSetsKey = "person_sets_pending"

    /// The `store_state` key whose value is the last event id whose people `person_label_sets`
    /// and `person_sets` hold; present only while filling them from the stored events is
    /// unfinished.
    static let labelSetsKey = "person_sets_filled_through"

    /// `a + b` in SQL, held within `Int64`: SQLite's `+` turns an integer overflow into a REAL,
    /// which `min`/`max` bring back to the nearest bound, so a stored sum never leaves the
    /// integers (the rollups' sums in memory saturate the same way).
    static func saturatingSum(_ a: String, _ b: String) -> String {
        "min(max(\(a) + \(b), -9223372036854775808), 9223372036854775807)"
    }

    /// Inserts one event, skipping it when the project already has its `messageId`.
    static let insertEvent = """
        INSERT OR IGNORE INTO events(project_id, message_id, type, name, time, client_timestamp, sent_at,
            received_at, anonymous_id, user_id, session_id, page, element_path, app_version, os, payload,
            similar_path, element_text, item_id, duration_ms, plan_event, client_offset, received_offset)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22,
            ?23)
        """

    /// An event's client time as read (a column expression): from schema version 14 on a row
    /// keeps it as `client_offset` from `time` (0 bytes when they are equal), and 0 in
    /// `client_timestamp`; a row written before keeps it in `client_timestamp` and no offset.
    static let clientTimestamp = "coalesce(time + client_offset, client_timestamp)"

    /// When an event was received, as read (a column expression); stored like
    /// ``clientTimestamp``, as `received_offset` from `time`.
    static let receivedAt = "coalesce(time + received_offset, received_at)"

    /// An event's similar element path as read (a column expression): from schema version 14 on
    /// a row keeps `similar_path` NULL where it equals `element_path` (a button's, not a cell's:
    /// most), and ``EventRecord`` gives an element without one its own path.
    static let similarPath = "coalesce(similar_path, element_path)"

    /// Adds to a daily count (`kind`: a ``RollupKind``; `detail`: the latest element text).
    static let upsertRollupCount = """
        INSERT INTO rollup_counts(project_id, day, kind, key, page, app_version, os, count, detail)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?9, ?8)
        ON CONFLICT DO UPDATE SET count = \(saturatingSum("count", "excluded.count")),
            detail = coalesce(excluded.detail, detail)
        """

    /// Adds to a daily count over every page, app version and OS (`rollup_totals`).
    static let upsertRollupTotal = """
        INSERT INTO rollup_totals(project_id, day, kind, key, count) VALUES (?1, ?2, ?3, ?4, ?5)
        ON CONFLICT DO UPDATE SET count = \(saturatingSum("count", "excluded.count"))
        """

    /// Reads a stored session.
    static let selectSession = """
        SELECT start_time, end_time, page_views, app_version, os, marks FROM sessions
        WHERE project_id = ?1 AND session_key = ?2
        """

    /// Stores a session, replacing the previous state.
    /// (An update in place: the row keeps its number, which its pages are keyed by.)
    static let upsertSession = """
        INSERT INTO sessions(project_id, session_key, day, start_time, end_time, page_views, app_version, os, marks)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
        ON CONFLICT(project_id, session_key) DO UPDATE SET day = excluded.day, start_time = excluded.start_time,
            end_time = excluded.end_time, page_views = excluded.page_views, app_version = excluded.app_version,
            os = excluded.os, marks = excluded.marks
        """

    /// Widens a session's span on one page (its `day` is that of the first event there) and adds
    /// to its page views there; the app version and OS stay those of the first stored event.
    /// The session is given by its key (`?2`) and stored by its number: its row is written first.
    static let upsertSessionPage = """
        INSERT INTO session_pages(project_id, session, page, day, start_time, end_time, page_views, app_version, os)
        SELECT ?1, number, ?3, ?4, ?5, ?6, ?7, ?8, ?9 FROM sessions WHERE project_id = ?1 AND session_key = ?2
        ON CONFLICT DO UPDATE SET
            day = CASE WHEN excluded.start_time < start_time THEN excluded.day ELSE day END,
            start_time = min(start_time, excluded.start_time), end_time = max(end_time, excluded.end_time),
            page_views = \(saturatingSum("page_views", "excluded.page_views"))
        """

    /// Adds to the count of a project's stored events.
    static let addStoredEvents = """
        INSERT INTO project_events(project_id, stored) VALUES (?1, ?2)
        ON CONFLICT DO UPDATE SET stored = \(saturatingSum("stored", "excluded.stored"))
        """

    /// Adds (or with negative values removes) dwells to a histogram bucket.
    static let upsertDwell = """
        INSERT INTO rollup_dwell(project_id, day, page, app_version, os, bucket, count, total)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
        ON CONFLICT DO UPDATE SET count = \(saturatingSum("count", "excluded.count")),
            total = \(saturatingSum("total", "excluded.total"))
        """

    /// Adds (or removes) page-to-page moves; `to_page` '' is the session's end.
    static let upsertMove = """
        INSERT INTO rollup_moves(project_id, day, from_page, to_page, app_version, os, count)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
        ON CONFLICT DO UPDATE SET count = \(saturatingSum("count", "excluded.count"))
        """

    /// Records an anonymousId ↔ userId link once.
    static let insertIdentity = """
        INSERT OR IGNORE INTO identities(project_id, anonymous_id, user_id, first_seen) VALUES (?1, ?2, ?3, ?4)
        """

    /// Each anonymous id of project `?1` with the user id it stands for: of the user ids linked to
    /// it, the smallest (byte order), whatever order the links arrived in
    /// (``EventStore/identityLinks(projectId:)``).
    static let selectIdentityLinks = """
        SELECT anonymous_id, min(user_id) FROM identities WHERE project_id = ?1 GROUP BY anonymous_id
        """

    /// Records a batch's evicted-event count once per batch.
    static let insertLostEvents = """
        INSERT OR IGNORE INTO lost_events(project_id, batch_key, count, received_at) VALUES (?1, ?2, ?3, ?4)
        """
}
