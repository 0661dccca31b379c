import FootprintServer
import FootprintSynthetic
import Testing

/// The generator's users who sign in later (``SyntheticTraffic/Configuration/signInLater``).
struct SyntheticTrafficTests {
    /// The sessions of `configuration`'s first `count` draws.
    static func sessions(_ configuration: SyntheticTraffic.Configuration, count: Int) -> [(
        events: [EventRecord], links: [IdentityLink]
    )] {
        var traffic = SyntheticTraffic(configuration: configuration)
        return (0..<count).map { _ in traffic.session() }
    }

    /// The anonymous ids with events both with and without a user id.
    static func devicesOfTwoMembers(_ events: [EventRecord]) -> Set<String> {
        var identified: Set<String> = []
        var anonymous: Set<String> = []
        for event in events {
            guard let device = event.anonymousId else { continue }
            if event.userId == nil { anonymous.insert(device) } else { identified.insert(device) }
        }
        return identified.intersection(anonymous)
    }

    @Test func usersWhoSignInLaterBrowseWithoutTheirUserIdBeforeTheirDay() {
        var configuration = SyntheticTraffic.Configuration()
        configuration.people = 300
        let usual = Self.sessions(configuration, count: 3_000)
        configuration.signInLater = true
        let later = Self.sessions(configuration, count: 3_000)
        // The same sessions, events and links but for the user ids of the sessions before the day.
        let events = (usual: usual.flatMap(\.events), later: later.flatMap(\.events))
        #expect(events.usual.count == events.later.count)
        var cleared = 0
        for (one, other) in zip(events.usual, events.later) {
            #expect(one.messageId == other.messageId)
            #expect(one.time == other.time)
            if one.userId != other.userId {
                #expect(other.userId == nil)
                cleared += 1
            }
        }
        #expect(cleared > 0)
        #expect(later.flatMap(\.links).count <= usual.flatMap(\.links).count)
        // Every user's device carries its user id on every event by default; signing in later,
        // many devices of linked users have events of both kinds: people of two members.
        #expect(Self.devicesOfTwoMembers(events.usual).isEmpty)
        let twoMembers = Self.devicesOfTwoMembers(events.later)
        let linked = Set(later.flatMap(\.links).map(\.anonymousId))
        #expect(
            twoMembers.intersection(linked).count > 20, "\(twoMembers.count) devices, \(linked.count) linked")
    }
}
