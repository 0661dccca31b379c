extension TrackingPlan {
    /// The plan in its JSON form, as ``init(json:)`` reads it: what the server publishes and a
    /// management tool writes. Keys with default values are left out.
    public var jsonValue: JSONValue {
        var root: JSONObject = ["version": .int(version)]
        if uploadMode != .all { root["uploadMode"] = .string(uploadMode.rawValue) }
        if pageMode != .all { root["pageMode"] = .string(pageMode.rawValue) }
        if exposureLists != .marked { root["exposureLists"] = .string(exposureLists.rawValue) }
        if sampleRate != 1 { root["sampleRate"] = .double(sampleRate) }
        if !blockedEvents.isEmpty {
            root["blockedEvents"] = .array(blockedEvents.sorted().map(JSONValue.string))
        }
        if !ignoredPages.isEmpty {
            root["ignoredPages"] = .array(ignoredPages.sorted().map(JSONValue.string))
        }
        if capture != CaptureSwitches() { root["capture"] = capture.jsonValue }
        if !pages.isEmpty {
            root["pages"] = .object(
                pages.mapValues { rule in
                    var page: JSONObject = ["name": .string(rule.name)]
                    if !rule.properties.isEmpty { page["properties"] = .object(rule.properties) }
                    return .object(page)
                })
        }
        if !events.isEmpty { root["events"] = .array(events.map(\.jsonValue)) }
        return .object(root)
    }
}

extension CaptureSwitches {
    fileprivate var jsonValue: JSONValue {
        .object([
            "pages": .bool(pages), "controls": .bool(controls), "cells": .bool(cells),
            "gestures": .bool(gestures),
            "alerts": .bool(alerts), "methods": .bool(methods), "exposures": .bool(exposures),
        ])
    }
}

extension PlanEvent {
    fileprivate var jsonValue: JSONValue {
        var event: JSONObject = [
            "id": .string(id), "name": .string(name), "triggers": .array(triggers.map(\.jsonValue)),
        ]
        if !properties.isEmpty {
            event["properties"] = .object(properties.mapValues { .string($0.description) })
        }
        return .object(event)
    }
}

extension PlanTrigger {
    fileprivate var jsonValue: JSONValue {
        switch self {
        case .method(let target, let method):
            return ["target": .string(target), "method": .string(method)]
        case .element(let rule):
            var trigger: JSONObject = ["path": .string(rule.path)]
            if rule.match != .exact { trigger["match"] = .string(rule.match.rawValue) }
            if !rule.attributes.isEmpty {
                trigger["attributes"] = .object(rule.attributes.mapValues(JSONValue.string))
            }
            return .object(trigger)
        }
    }
}
