import Footprint
import FootprintSimulation
import Foundation

/// One person using the sample shop: how they read lists, how often they come, which app
/// version their phone runs and whether they sign in. Drawn once from the demo's seed.
struct VirtualUser: Sendable {
    /// The user's number, from 0: their storage folder and their key in the tally.
    let index: Int
    /// How they scroll the product feed.
    let readingStyle: ReadingStyle
    /// The chance they open the app on a given day.
    let dailyVisitProbability: Double
    /// The app version installed on the first day (an index into ``ShopInterface/appVersions``).
    let firstVersionIndex: Int
    /// The day they install the next version, if they do.
    let upgradeDay: Int?
    /// Whether they sign in at their first checkout.
    let signsInAtCheckout: Bool
    /// `context.device.model`.
    let deviceModel: String
    /// `context.os.version`.
    let osVersion: String
    /// Whether they signed in already (the tracker remembers the user id across launches).
    var isSignedIn = false
    /// The app version of their last visit, `nil` before the first (the tracker remembers it
    /// across launches to report installs and updates).
    var lastVersion: String?

    init(index: Int, days: Int, using generator: inout SeededRandom) {
        self.index = index
        readingStyle = ReadingStyle.allCases.randomElement(using: &generator) ?? .slowReader
        dailyVisitProbability = Double.random(in: 0.25...0.9, using: &generator)
        firstVersionIndex = Int.random(in: 0..<ShopInterface.appVersions.count, using: &generator)
        upgradeDay =
            firstVersionIndex < ShopInterface.appVersions.count - 1 && generator.chance(0.5)
            ? Int.random(in: 0..<max(1, days), using: &generator) : nil
        signsInAtCheckout = generator.chance(0.6)
        deviceModel =
            ["iPhone14,5", "iPhone15,2", "iPhone15,4", "iPhone16,1", "iPhone17,3"]
            .randomElement(using: &generator) ?? "iPhone15,2"
        osVersion = ["17.6.1", "18.1", "18.2", "18.3.1"].randomElement(using: &generator) ?? "18.1"
    }

    /// The app's user id for them.
    var userId: String { "user-\(index + 1)" }

    /// The app version they run on `day` (counted from 0).
    func appVersion(onDay day: Int) -> String {
        var version = firstVersionIndex
        if let upgradeDay, day >= upgradeDay { version += 1 }
        return ShopInterface.appVersions[min(version, ShopInterface.appVersions.count - 1)]
    }

    /// The device facts their tracker sends as `context`.
    func deviceContext(onDay day: Int) -> DeviceContext {
        Self.deviceContext(appVersion: appVersion(onDay: day), osVersion: osVersion, deviceModel: deviceModel)
    }

    /// The device facts of a phone running the shop's `version`.
    static func deviceContext(appVersion version: String, osVersion: String, deviceModel: String)
        -> DeviceContext
    {
        var context = DeviceContext()
        context.appName = "Footprint Shop"
        context.appVersion = version
        context.appBuild = version.replacingOccurrences(of: ".", with: "") + "0"
        context.appNamespace = "com.example.footprint-shop"
        context.osName = "iOS"
        context.osVersion = osVersion
        context.deviceModel = deviceModel
        context.deviceManufacturer = "Apple"
        context.deviceType = "ios"
        context.locale = "en-US"
        context.timezone = "Europe/Paris"
        return context
    }
}
