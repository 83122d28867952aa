//! Exporters and providers from the standard OpenTelemetry environment, and the `tracing` layer
//! that turns the agents' spans into OpenTelemetry spans.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};
use tracing_subscriber::Layer;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;

/// Why telemetry could not be set up or shut down.
///
/// ```
/// let error = agents_kt::telemetry::TelemetryError::new("no exporter");
/// assert!(error.to_string().contains("no exporter"));
/// ```
#[derive(thiserror::Error)]
#[error("telemetry: {0}")]
#[non_exhaustive]
pub struct TelemetryError(pub String);

impl TelemetryError {
    /// Telemetry failed for this reason.
    ///
    /// ```
    /// assert_eq!(agents_kt::telemetry::TelemetryError::new("closed").0, "closed");
    /// ```
    pub fn new(reason: impl Into<String>) -> Self {
        TelemetryError(reason.into())
    }
}

/// The tracer and meter providers the agents' telemetry goes to. Dropping it flushes and shuts
/// them down (so a short program loses nothing); [`Telemetry::shutdown`] does so and says
/// whether it worked.
///
/// ```
/// use agents_kt::telemetry::Telemetry;
/// use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
/// use tracing_subscriber::layer::SubscriberExt;
///
/// let spans = InMemorySpanExporter::default();
/// let provider = SdkTracerProvider::builder().with_simple_exporter(spans.clone()).build();
/// let telemetry = Telemetry::new(provider, None);
/// let subscriber = tracing_subscriber::registry().with(telemetry.layer());
/// tracing::subscriber::with_default(subscriber, || {
///     tracing::info_span!("work").in_scope(|| {});
/// });
/// assert_eq!(spans.get_finished_spans().unwrap()[0].name, "work");
/// ```
#[derive(Debug)]
pub struct Telemetry {
    tracer_provider: Option<SdkTracerProvider>,
    meter_provider: Option<SdkMeterProvider>,
}

/// Set up telemetry from the environment (see [the module](crate::telemetry)) and install it as
/// the global `tracing` subscriber; keep the returned guard alive for as long as agents run.
///
/// ```no_run
/// let _telemetry = agents_kt::telemetry::init().expect("telemetry");
/// ```
pub fn init() -> Result<Telemetry, TelemetryError> {
    let telemetry = Telemetry::from_env()?;
    telemetry.install()?;
    Ok(telemetry)
}

impl Telemetry {
    /// OTLP/HTTP exporters as the environment configures them; the meter provider becomes the
    /// global one (agents built afterwards record to it) and W3C trace context the global
    /// propagator. No subscriber is installed: see [`Telemetry::install`] and
    /// [`Telemetry::layer`].
    pub fn from_env() -> Result<Self, TelemetryError> {
        let off = |signal: &str| {
            std::env::var("OTEL_SDK_DISABLED").is_ok_and(|v| v.trim().eq_ignore_ascii_case("true"))
                || std::env::var(signal).is_ok_and(|v| v.trim().eq_ignore_ascii_case("none"))
        };
        let resource = Resource::builder().build();
        let tracer_provider = if off("OTEL_TRACES_EXPORTER") {
            None
        } else {
            let exporter = opentelemetry_otlp::SpanExporter::builder()
                .with_http()
                .build()
                .map_err(|error| TelemetryError(format!("the OTLP span exporter: {error}")))?;
            Some(
                SdkTracerProvider::builder()
                    .with_resource(resource.clone())
                    .with_batch_exporter(exporter)
                    .build(),
            )
        };
        let meter_provider = if off("OTEL_METRICS_EXPORTER") {
            None
        } else {
            let exporter = opentelemetry_otlp::MetricExporter::builder()
                .with_http()
                .build()
                .map_err(|error| TelemetryError(format!("the OTLP metric exporter: {error}")))?;
            let provider = SdkMeterProvider::builder()
                .with_resource(resource)
                .with_reader(PeriodicReader::builder(exporter).build())
                .build();
            opentelemetry::global::set_meter_provider(provider.clone());
            Some(provider)
        };
        opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
        Ok(Telemetry {
            tracer_provider,
            meter_provider,
        })
    }

    /// Telemetry over providers of your own (an in-memory exporter in a test, another exporter,
    /// another sampler). Nothing global is set: give agents the meter with
    /// [`AgentBuilder::meter`](crate::AgentBuilder::meter), and for trace context across MCP set
    /// a propagator (`opentelemetry::global::set_text_map_propagator(
    /// opentelemetry_sdk::propagation::TraceContextPropagator::new())`).
    pub fn new(
        tracer_provider: SdkTracerProvider,
        meter_provider: Option<SdkMeterProvider>,
    ) -> Self {
        Telemetry {
            tracer_provider: Some(tracer_provider),
            meter_provider,
        }
    }

    /// The `tracing` layer that makes OpenTelemetry spans of the agents' spans (and of any other
    /// `tracing` span), at `INFO` and above — decisions are `INFO` events. Add it to your own
    /// subscriber.
    pub fn layer<S>(&self) -> impl Layer<S> + use<S>
    where
        S: tracing::Subscriber + for<'span> LookupSpan<'span>,
    {
        let layer = self.tracer_provider.as_ref().map(|provider| {
            // Only what the conventions define: no source locations, threads, `tracing`
            // targets or busy/idle times on every span.
            tracing_opentelemetry::layer()
                .with_tracer(tracer(provider))
                .with_location(false)
                .with_threads(false)
                .with_target(false)
                .with_tracked_inactivity(false)
                .with_filter(LevelFilter::INFO)
        });
        // With traces switched off the layer is absent: `Option<Layer>` is a layer that does
        // nothing.
        layer
    }

    /// Install a global `tracing` subscriber: [`Telemetry::layer`], and warnings on stderr.
    /// Fails if a global subscriber is already set (compose [`Telemetry::layer`] into it
    /// instead).
    pub fn install(&self) -> Result<(), TelemetryError> {
        let subscriber = tracing_subscriber::registry().with(self.layer()).with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_filter(LevelFilter::WARN),
        );
        tracing::subscriber::set_global_default(subscriber).map_err(|error| {
            TelemetryError(format!("a tracing subscriber is already set: {error}"))
        })
    }

    /// Export everything recorded so far now, without waiting for the batch interval.
    pub fn flush(&self) -> Result<(), TelemetryError> {
        if let Some(provider) = &self.tracer_provider {
            provider
                .force_flush()
                .map_err(|error| TelemetryError(format!("flushing spans: {error}")))?;
        }
        if let Some(provider) = &self.meter_provider {
            provider
                .force_flush()
                .map_err(|error| TelemetryError(format!("flushing metrics: {error}")))?;
        }
        Ok(())
    }

    /// Flush and shut both providers down.
    pub fn shutdown(mut self) -> Result<(), TelemetryError> {
        self.shutdown_providers()
    }

    fn shutdown_providers(&mut self) -> Result<(), TelemetryError> {
        let mut failures = Vec::new();
        if let Some(provider) = self.tracer_provider.take()
            && let Err(error) = provider.shutdown()
        {
            failures.push(format!("spans: {error}"));
        }
        if let Some(provider) = self.meter_provider.take()
            && let Err(error) = provider.shutdown()
        {
            failures.push(format!("metrics: {error}"));
        }
        match failures.is_empty() {
            true => Ok(()),
            false => Err(TelemetryError(format!(
                "shutting down: {}",
                failures.join("; ")
            ))),
        }
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        if let Err(error) = self.shutdown_providers() {
            tracing::warn!(%error, "telemetry was not flushed");
        }
    }
}

fn tracer(provider: &SdkTracerProvider) -> SdkTracer {
    provider.tracer_with_scope(
        opentelemetry::InstrumentationScope::builder("agents-kt")
            .with_version(env!("CARGO_PKG_VERSION"))
            .build(),
    )
}

crate::error_debug::readable_debug!(TelemetryError);
