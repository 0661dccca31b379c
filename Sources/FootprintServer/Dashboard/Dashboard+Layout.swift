import FootprintWire

extension Dashboard {
    /// A message shown above a page's content.
    enum Message {
        case success(String)
        case failure(String)

        var html: String {
            switch self {
            case .success(let text): return "<p class=\"notice\" role=\"status\">\(HTML.escape(text))</p>"
            case .failure(let text): return "<p class=\"error\" role=\"alert\">\(HTML.escape(text))</p>"
            }
        }
    }

    /// The pages in the navigation, in order.
    static let navigation: [(path: String, title: String)] = [
        ("/", "Overview"), ("/pages", "Pages"), ("/events", "Events"), ("/elements", "Elements"),
        ("/screens", "Screens"),
        ("/items", "Exposures"), ("/funnels", "Funnels"), ("/retention", "Retention"),
        ("/live", "Live events"),
        ("/definitions", "Definitions"), ("/config", "Config"),
    ]

    /// A whole HTML document.
    static func document(title: String, body: String, status: Int) -> ServerResponse {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(HTML.escape(title)) · Footprint</title>
            <link rel="stylesheet" href="/assets/dashboard.css">
            </head><body>
            \(body)
            </body></html>
            """
        return ServerResponse(
            status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: Array(html.utf8))
    }

    /// A plain page without the navigation (errors).
    func page(status: Int, title: String, body: String) -> ServerResponse {
        Self.document(
            title: title, body: "<main class=\"plain\"><h1>\(HTML.escape(title))</h1>\(body)</main>",
            status: status)
    }

    /// The query string that keeps the current project and filters on links.
    func filterQuery(_ context: Context, extra: [(String, String?)] = []) -> String {
        let query = context.request.query
        return HTML.query(
            [
                ("project", context.parameters.project), ("from", query["from"]), ("to", query["to"]),
                ("app_version", query["app_version"]), ("os", query["os"]), ("page", query["page"]),
            ] + extra)
    }

    /// A page with the header, navigation, notices and (for reports) the filter form.
    func page(
        _ context: Context, path: String, title: String, content: String, filters: Bool = true,
        message: Message? = nil, status: Int = 200
    ) -> ServerResponse {
        let links = Self.navigation.map { item in
            let current = item.path == path ? " aria-current=\"page\"" : ""
            return "<a href=\"\(item.path)\(filterQuery(context))\"\(current)>\(item.title)</a>"
        }.joined()
        var notices = message?.html ?? ""
        if message == nil, let notice = context.request.query["notice"], !notice.isEmpty {
            notices = Message.success(String(notice.prefix(300))).html
        }
        let projectPicker: String
        if context.projects.count > 1 {
            let options = context.projects.map { project in
                "<option\(project.id == context.project.id ? " selected" : "")>\(HTML.escape(project.name))</option>"
            }.joined()
            projectPicker =
                "<form class=\"project\" method=\"get\" action=\"\(path)\"><select name=\"project\" aria-label=\"Project\">\(options)</select><button type=\"submit\">Open</button></form>"
        } else {
            projectPicker = "<span class=\"project\">\(HTML.escape(context.project.name))</span>"
        }
        let body = """
            <header><span class="brand">Footprint</span>\(projectPicker)
            <form class="signout" method="post" action="/signout"><input type="hidden" name="csrf" value="\(context.csrfToken)"><button type="submit">Sign out</button></form>
            </header>
            <nav>\(links)</nav>
            <main>
            <h1>\(HTML.escape(title))</h1>
            \(notices)
            \(filters ? filterForm(context, path: path) + retentionNotice(context) : "")
            \(content)
            </main>
            """
        return Self.document(title: title, body: body, status: status)
    }

    /// The note shown when the range starts before the project's retention horizon.
    func retentionNotice(_ context: Context) -> String {
        guard let horizon = try? service.metadata.retentionHorizon(projectId: context.project.id),
            context.parameters.filter.from.map({ $0 < horizon }) ?? true
        else { return "" }
        return "<p class=\"hint retention\">\(HTML.escape(RetentionNote(horizon: horizon).text))</p>"
    }

    /// The time range and filter form (GET: it only changes the view).
    func filterForm(_ context: Context, path: String, extra: String = "") -> String {
        let query = context.request.query
        func field(_ name: String, _ label: String, _ value: String?, type: String = "text") -> String {
            "<label>\(label) <input type=\"\(type)\" name=\"\(name)\" value=\"\(HTML.escape(value ?? ""))\"></label>"
        }
        let project =
            context.parameters.project.map {
                "<input type=\"hidden\" name=\"project\" value=\"\(HTML.escape($0))\">"
            } ?? ""
        return """
            <form class="filters" method="get" action="\(path)">\(project)
            \(field("from", "From", context.parameters.fromDay, type: "date"))
            \(field("to", "To", context.parameters.toDay, type: "date"))
            \(field("app_version", "App version", query["app_version"]))
            \(field("os", "OS", query["os"]))
            \(field("page", "Page", query["page"]))
            \(extra)
            <button type="submit">Apply</button>
            </form>
            """
    }

    /// A form posting to `action` with the CSRF token.
    func postForm(
        _ context: Context, action: String, fields: [String: String] = [:], button: String, style: String = ""
    )
        -> String
    {
        let hidden = fields.sorted { $0.key < $1.key }.map {
            "<input type=\"hidden\" name=\"\(HTML.escape($0.key))\" value=\"\(HTML.escape($0.value))\">"
        }.joined()
        let project = context.parameters.project.map { "?project=\(HTML.percentEncode($0))" } ?? ""
        return
            "<form class=\"inline \(style)\" method=\"post\" action=\"\(action)\(project)\"><input type=\"hidden\" name=\"csrf\" value=\"\(context.csrfToken)\">\(hidden)<button type=\"submit\">\(HTML.escape(button))</button></form>"
    }

    /// Key figures as cards.
    static func cards(_ figures: [(label: String, value: String)]) -> String {
        "<div class=\"cards\">"
            + figures.map {
                "<div class=\"card\"><div class=\"value\">\(HTML.escape($0.value))</div><div class=\"label\">\(HTML.escape($0.label))</div></div>"
            }.joined() + "</div>"
    }
}
