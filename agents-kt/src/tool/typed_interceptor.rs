//! Interceptors for one tool, typed against its `Args` and `Output`.

use std::fmt;
use std::sync::Arc;

use super::Tool;
use crate::{FnInterceptor, Interceptor, InterceptorReturn};

/// An interceptor for tool `T` alone: it inspects `T::Args`, may replace them with other
/// `T::Args`, and may substitute a `T::Output`. Register it with
/// [`AgentBuilder::before_tool_call`](crate::AgentBuilder::before_tool_call).
///
/// ```
/// # use std::borrow::Cow;
/// # use agents_kt::{Tool, ToolContext, ToolError};
/// # #[derive(Clone, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
/// # pub struct GetWeatherArgs { pub city: String }
/// # pub struct GetWeather;
/// # impl Tool for GetWeather {
/// #     const NAME: &'static str = "get_weather";
/// #     type Args = GetWeatherArgs;
/// #     type Output = String;
/// #     fn description(&self) -> Cow<'static, str> { "Weather.".into() }
/// #     async fn call(&self, _: GetWeatherArgs, _: &ToolContext) -> Result<String, ToolError> { Ok("sunny".into()) }
/// # }
/// use agents_kt::{Decision, ToolInterceptor};
/// let no_mars = ToolInterceptor::<GetWeather>::new(|args: &GetWeatherArgs| {
///     if args.city == "Mars" { Decision::deny("no weather service on Mars") } else { Decision::Proceed }
/// });
/// ```
pub struct ToolInterceptor<T: Tool> {
    pub(crate) inner: Arc<dyn Interceptor<T::Args, T::Output>>,
}

impl<T: Tool> ToolInterceptor<T> {
    /// An interceptor from a closure over `&T::Args`, sync or async, returning a `Decision`, a
    /// `Result<Decision, E>`, or a future of either.
    pub fn new<F, D, M>(f: F) -> Self
    where
        F: Fn(&T::Args) -> D + Send + Sync + 'static,
        D: InterceptorReturn<T::Args, T::Output, M> + 'static,
        M: 'static,
    {
        ToolInterceptor {
            inner: Arc::new(FnInterceptor::<F, T::Args, M>::new(f)),
        }
    }

    /// An interceptor from any [`Interceptor`] implementation with state of its own.
    pub fn from_interceptor(interceptor: impl Interceptor<T::Args, T::Output> + 'static) -> Self {
        ToolInterceptor {
            inner: Arc::new(interceptor),
        }
    }
}

impl<T: Tool> Clone for ToolInterceptor<T> {
    fn clone(&self) -> Self {
        ToolInterceptor {
            inner: Arc::clone(&self.inner),
        }
    }
}

impl<T: Tool> fmt::Debug for ToolInterceptor<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ToolInterceptor<{}>", T::NAME)
    }
}
