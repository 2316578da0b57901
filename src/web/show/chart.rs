//! A library chart ([`crate::report::Chart`]) on the page: the same SVG the CLI's report and
//! README figures use, so the web app and the report show the same figures.

use yew::prelude::*;

use crate::report::Chart;

/// The chart inline. Its markup comes from the library, which escapes every label, so it is
/// safe to insert even when the labels come from an imported file.
pub fn chart(chart: &Chart) -> Html {
    html! {
        <figure class="report-chart" id={format!("chart-{}", chart.id)} data-kind={kind(chart)}>
            { Html::from_html_unchecked(AttrValue::from(chart.svg())) }
        </figure>
    }
}

fn kind(chart: &Chart) -> &'static str {
    match chart.kind {
        crate::report::ChartKind::Bars { .. } => "bars",
        crate::report::ChartKind::Radar { .. } => "radar",
        crate::report::ChartKind::Scatter { .. } => "scatter",
        crate::report::ChartKind::Convergence { .. } => "convergence",
    }
}
